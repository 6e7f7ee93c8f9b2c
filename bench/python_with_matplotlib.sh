#!/bin/sh
# Runs a plotting script with a Python that has matplotlib: $PYTHON (python3 unless set), or,
# where that one lacks it and /usr/bin/python3 has it (apt's python3-matplotlib installs it for
# the system's interpreter, not for a pyenv, venv or conda python3 on PATH), the system's, saying
# so. Otherwise it names the interpreter that it tried and the install command for that one.
PYTHON="${PYTHON:-python3}"
has_matplotlib() { "$1" -c "import matplotlib" >/dev/null 2>&1; }
if has_matplotlib "$PYTHON"; then
  exec "$PYTHON" "$@"
fi
tried=$(command -v "$PYTHON" 2>/dev/null || echo "$PYTHON")
if [ -x /usr/bin/python3 ] && has_matplotlib /usr/bin/python3; then
  echo "note: $tried has no matplotlib; using /usr/bin/python3, which has it (PYTHON=... chooses)"
  exec /usr/bin/python3 "$@"
fi
if [ "$(readlink -f "$tried" 2>/dev/null)" = "$(readlink -f /usr/bin/python3 2>/dev/null)" ]; then
  install="apt-get install python3-matplotlib (or $tried -m pip install matplotlib)"
else
  install="$tried -m pip install matplotlib"
fi
echo "error: $tried has no matplotlib, and neither has /usr/bin/python3; for $tried: $install" >&2
exit 1
