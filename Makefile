# The one entry point of the suite. `make help` lists the targets.
BUILD    := build
CXX      ?= g++
# OpenMP where the compiler has it (Apple's clang has none; make OPENMP= leaves it out): the
# programs are right without it, their host loops and sorts then on one core.
ifeq ($(origin OPENMP),undefined)
  OPENMP := $(shell printf 'int main() {}' | $(CXX) -x c++ -fopenmp - -o /dev/null 2>/dev/null \
                    && echo -fopenmp)
endif
CXXFLAGS := -std=c++17 -O2 -Wall -Wextra $(or $(OPENMP),-Wno-unknown-pragmas) -MMD -MP
NVCC     ?= $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc))
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))

# Native code for the GPU that is visible; without one, PTX for one baseline arch, which builds
# fast and which the driver compiles for whatever newer GPU later runs it.
GPU_VISIBLE := $(shell nvidia-smi -L >/dev/null 2>&1 && echo yes)
ifeq ($(origin CUDA_ARCH),undefined)
  CUDA_ARCH := $(if $(GPU_VISIBLE),native,compute_75)
  ARCH_REASON := $(if $(GPU_VISIBLE),a GPU is visible,no GPU visible: portable PTX)
else
  ARCH_REASON := as given
endif
ifneq ($(filter compute_%,$(CUDA_ARCH)),)
  ARCH_FLAGS := -gencode arch=$(CUDA_ARCH),code=$(CUDA_ARCH)
else
  ARCH_FLAGS := -arch=$(CUDA_ARCH)
endif
NVCCFLAGS := -std=c++17 -O2 $(ARCH_FLAGS) -Xcompiler -fopenmp,-Wall,-Wextra -MMD -MP
NVLIBS    := -lcusparse -lgomp
# Where catch2/catch.hpp is not on the default include path: make test CATCH2_INCLUDE=-I/some/dir
CATCH2_INCLUDE ?=

# Without nvcc (not found, or make NVCC=), the C++ compiler builds the kernel lessons too, each .cu
# as C++ (common/cuda_without_toolkit.h), and their kernels run in the host emulator; the library
# routes (CUB, cuSPARSE, NCCL) are left out, and their claims skipped; what they leave is their
# functions' parameters, unused, hence the one warning left out (the nvcc build keeps it).
ifeq ($(NVCC),)
  CU_COMPILE := $(CXX) $(CXXFLAGS) -Wno-unused-parameter -DSUITE_EMULATOR_ONLY -x c++
  CU_LIBS :=
  CU_EXERCISE_COMPILE := $(CU_COMPILE)
else
  CU_COMPILE := $(NVCC) $(NVCCFLAGS)
  CU_LIBS := $(NVLIBS)
  CU_EXERCISE_COMPILE = $(NVCC) $(EXERCISE_NVCCFLAGS)
endif

CPU_SOURCES := $(sort $(wildcard ch21_csr/[0-9]*.cpp ch14_spmv/[0-9]*.cpp))
GPU_SOURCES := $(sort $(wildcard ch21_csr/[0-9]*.cu ch14_spmv/[0-9]*.cu))
CPU_PROGRAMS := $(notdir $(basename $(CPU_SOURCES)))
GPU_PROGRAMS := $(notdir $(basename $(GPU_SOURCES)))
BUILT_PROGRAMS := $(CPU_PROGRAMS) $(GPU_PROGRAMS)
# Programs run in the order of their numbers.
RUN_ORDER := $(sort $(BUILT_PROGRAMS))

# Each test file is its own binary: a program's tests include the program itself, and a later
# lesson includes the earlier lessons whose kernels it reuses, so two test files may hold the
# same functions. Catch2's main is compiled once and linked into each.
TEST_CPP := $(wildcard tests/test_*.cpp)
TEST_CU  := $(wildcard tests/test_*.cu)
TEST_BINARIES := $(TEST_CPP:tests/%.cpp=$(BUILD)/tests/%) $(TEST_CU:tests/%.cu=$(BUILD)/tests/%)
ifeq ($(NVCC),)
  TEST_SUPPORT  := $(BUILD)/tests/catch_main.o $(BUILD)/tests/gpu_probe_without_cuda.o
  TEST_LINK     := $(CXX) $(OPENMP)
else
  TEST_SUPPORT  := $(BUILD)/tests/catch_main.o $(BUILD)/tests/gpu_probe.o
  TEST_LINK     := $(NVCC) $(ARCH_FLAGS)
endif
# Catch2 arguments for every test binary, e.g. make test TEST_ARGS='[gpu]'
TEST_ARGS ?=

# The tests that run the programs need to know where they are, and the tests of the race check
# whether this build has it (RACE_CHECK is set below).
TEST_BUILD_DEFINE := $(if $(filter-out build,$(BUILD)),-DSUITE_BUILD='"$(BUILD)/"')
TEST_DEFINES = $(TEST_BUILD_DEFINE) $(if $(RACE_CHECK),-DSUITE_HAVE_RACE_CHECK,)

SANITIZER ?= $(or $(shell command -v compute-sanitizer 2>/dev/null),$(wildcard $(CUDA_HOME)/bin/compute-sanitizer))
SANITIZE_PROGRAMS ?= $(GPU_PROGRAMS)
SANITIZE_TOOLS ?= memcheck racecheck synccheck initcheck
SANITIZE_INPUTS ?= default,--scale 12
SANITIZE_JOBS ?= 4

# libFuzzer needs clang (Debian: apt-get install clang libclang-rt-14-dev).
FUZZ_CXX ?= clang++
SECONDS ?= 60

# The self-check exercises: skeletons in ch*/exercises/, their reference solutions in
# solutions/, each built like a numbered kernel program. A skeleton's TODO body may leave its
# parameters unused until it is written, hence the one warning left out.
EXERCISE_SOURCES := $(sort $(wildcard ch21_csr/exercises/ex*.cu)) \
                    $(sort $(wildcard ch14_spmv/exercises/ex*.cu))
SOLUTION_SOURCES := $(sort $(wildcard solutions/ch21_csr/ex*.cu)) \
                    $(sort $(wildcard solutions/ch14_spmv/ex*.cu))
EXERCISES := $(notdir $(basename $(EXERCISE_SOURCES)))
SOLUTIONS := $(notdir $(basename $(SOLUTION_SOURCES)))
EXERCISE_NVCCFLAGS := $(NVCCFLAGS) -Xcompiler -Wno-unused-parameter
BUILT_EXERCISES := $(EXERCISES:%=$(BUILD)/exercises/%)
BUILT_SOLUTIONS := $(SOLUTIONS:%=$(BUILD)/solutions/%)

# The race check (make races): the kernel programs and the reference solutions built with
# ThreadSanitizer, in the emulator's second mode, which runs a launch's threads on a pool of host
# threads at once (common/emulator.cuh). It never runs device code, so the C++ compiler builds it
# as it builds the kernel lessons without the CUDA Toolkit, whether nvcc is there or not (nvcc
# would add nothing that it runs, and takes twice as long). It leaves OpenMP out: libgomp is not
# built for ThreadSanitizer, which would see races in it that are not there. Line tables (-g1)
# let a report name the file and line.
RACE_CHECK := $(shell printf 'int main() {}' | $(CXX) -x c++ -fsanitize=thread - -o /dev/null \
                2>/dev/null && echo yes)
RACE_COMPILE := $(CXX) -std=c++17 -O2 -DSUITE_RACE_CHECK -DSUITE_EMULATOR_ONLY -fsanitize=thread \
                -g1 -Wall -Wextra -Wno-unknown-pragmas -Wno-unused-parameter -MMD -MP -x c++
RACES := $(BUILD)/races
RACE_PROGRAMS := $(GPU_PROGRAMS:%=$(RACES)/%)
RACE_SOLUTIONS := $(SOLUTIONS:%=$(RACES)/solutions/%)
RACE_EXERCISES := $(if $(RACE_CHECK),$(EXERCISES:%=$(RACES)/exercises/%))
RACE_JOBS ?= $(shell nproc 2>/dev/null || echo 2)

# The planted races: the atomic on a line that a lesson or a reference solution marks
# "// make races plants a plain ++ here" (or +=), made a plain read-modify-write in a copy of the
# source (tests/plant_race.sh), which ThreadSanitizer must report at that line
# (tests/test_races.cpp).
PLANTED_SOURCES := $(shell tests/plant_race.sh --find)
PLANTED_RACES := $(notdir $(basename $(PLANTED_SOURCES)))
planted_from = $(filter %/$(1).cu,$(PLANTED_SOURCES))
RACE_PLANTED := $(PLANTED_RACES:%=$(RACES)/planted/%)
# The race-check build of a planted race's original source, where the race check builds it.
race_original = $(RACES)/$(if $(filter solutions/%,$(1)),solutions/)$(notdir $(basename $(1)))
# What tests/test_races.cpp runs: each planted race, the race-check build of its original, and
# 21.1's reference solution, whose answers the exercise report pairs with the planted race.
RACE_TEST_BINARIES := $(if $(RACE_CHECK),$(RACE_PLANTED) \
                      $(foreach source,$(PLANTED_SOURCES),$(call race_original,$(source))) \
                      $(BUILD)/solutions/ex21_1_csc_scatter)

.PHONY: all run test sanitize races fuzz bench plots figures slides ncu-sectors memory-figures \
        help clean cuda-note $(CPU_PROGRAMS) $(GPU_PROGRAMS) exercises exercise-solutions \
        $(EXERCISES)

all: cuda-note $(addprefix $(BUILD)/,$(BUILT_PROGRAMS))

cuda-note:
ifeq ($(NVCC),)
	@echo "note: nvcc was not found, so $(CXX) builds the kernel programs" \
	  "($(words $(GPU_PROGRAMS))) too, and their kernels run in the host emulator; the library" \
	  "routes (CUB, cuSPARSE, NCCL) need the CUDA Toolkit."
else
	@echo "CUDA_ARCH=$(CUDA_ARCH) ($(ARCH_REASON)); make CUDA_ARCH=sm_90 or =all overrides it"
	@$(if $(NCCL_HEADER),true,echo "note: nccl.h was not found, so 149 is built without NCCL: its ranks share GPU 0")
endif

# The binaries depend on the flags, so that a new CUDA_ARCH rebuilds them.
$(BUILD)/nvcc-flags: FORCE
	@mkdir -p $(BUILD)
	@echo '$(CU_COMPILE)' | cmp -s - $@ || echo '$(CU_COMPILE)' > $@
FORCE:

$(BUILD)/%: ch21_csr/%.cpp
	@mkdir -p $(BUILD)
	$(CXX) $(CXXFLAGS) $< -o $@

$(BUILD)/%: ch14_spmv/%.cpp
	@mkdir -p $(BUILD)
	$(CXX) $(CXXFLAGS) $< -o $@

$(BUILD)/%: ch21_csr/%.cu $(BUILD)/nvcc-flags
	$(CU_COMPILE) $< -o $@ $(CU_LIBS)

$(BUILD)/%: ch14_spmv/%.cu $(BUILD)/nvcc-flags
	$(CU_COMPILE) $(PROGRAM_FLAGS) $< -o $@ $(CU_LIBS) $(PROGRAM_LIBS)

# 149 across GPUs needs NCCL (nccl.h and libnccl, shipped with the CUDA Toolkit on many machines);
# without it, 149's ranks share one GPU and it says so.
NCCL_HEADER := $(if $(NVCC),$(firstword $(wildcard $(CUDA_HOME)/include/nccl.h \
                 /usr/include/nccl.h /usr/local/include/nccl.h)))
$(BUILD)/149_spmv_across_ranks_kernel: PROGRAM_FLAGS := $(if $(NCCL_HEADER),-DSUITE_HAVE_NCCL)
$(BUILD)/149_spmv_across_ranks_kernel: PROGRAM_LIBS := $(if $(NCCL_HEADER),-lnccl)
$(BUILD)/tests/test_149.o: PROGRAM_FLAGS := $(if $(NCCL_HEADER),-DSUITE_HAVE_NCCL)
$(BUILD)/tests/test_149: PROGRAM_LIBS := $(if $(NCCL_HEADER),-lnccl)

$(CPU_PROGRAMS) $(GPU_PROGRAMS): %: $(BUILD)/%

run: all
	@passed=0; failed=0; \
	for p in $(RUN_ORDER); do \
	  echo; echo "---- $(BUILD)/$$p"; \
	  if $(BUILD)/$$p; then passed=$$((passed + 1)); else failed=$$((failed + 1)); echo "---- $$p FAILED"; fi; \
	done; \
	echo; \
	echo "programs: $$passed passed, $$failed failed"; \
	test $$failed -eq 0

$(BUILD)/tests/%.o: tests/%.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) $(TEST_DEFINES) $(CATCH2_INCLUDE) -c $< -o $@

$(BUILD)/tests/%.o: tests/%.cu $(BUILD)/nvcc-flags
	@mkdir -p $(dir $@)
	$(CU_COMPILE) $(PROGRAM_FLAGS) $(TEST_BUILD_DEFINE) $(CATCH2_INCLUDE) -c $< -o $@

$(BUILD)/tests/test_%: $(BUILD)/tests/test_%.o $(TEST_SUPPORT)
	$(TEST_LINK) $^ -o $@ $(if $(NVCC),$(NVLIBS),) $(PROGRAM_LIBS)

# The tests run the built programs too, as a user would.
test: all $(TEST_BINARIES)
	@tests/run_test_binaries.sh '$(TEST_ARGS)' $(TEST_BINARIES)

# build/exercises/NAME from ch*/exercises/NAME.cu, build/solutions/NAME from solutions/ch*/NAME.cu,
# and their race-check builds under build/races/.
define exercise_build_rule
$(BUILD)/$(1)/%: $(2)/%.cu $(BUILD)/nvcc-flags
	@mkdir -p $$(@D)
	$$(CU_EXERCISE_COMPILE) $$< -o $$@ $$(CU_LIBS)
$(RACES)/$(1)/%: $(2)/%.cu
	@mkdir -p $$(@D)
	$$(RACE_COMPILE) $$< -o $$@
endef
$(foreach chapter,ch21_csr ch14_spmv,\
  $(eval $(call exercise_build_rule,exercises,$(chapter)/exercises))\
  $(eval $(call exercise_build_rule,solutions,solutions/$(chapter))))

$(EXERCISES): %: $(BUILD)/exercises/%

# The tests prove that every skeleton fails and every reference passes: they run both builds.
test: $(BUILT_EXERCISES) $(BUILT_SOLUTIONS)

# A report, not a gate: it exits 0 however many exercises are still unsolved. Where
# ThreadSanitizer is available, an exercise is solved only if its race-check build is race-free.
exercises: cuda-note $(BUILT_EXERCISES) $(RACE_EXERCISES)
	@tests/report_exercises.sh exercises report $(BUILD)/exercises '$(if $(RACE_CHECK),$(RACES)/exercises)' $(EXERCISES)

exercise-solutions: cuda-note $(BUILT_SOLUTIONS) $(if $(RACE_CHECK),$(RACE_SOLUTIONS))
	@tests/report_exercises.sh 'exercise solutions' strict $(BUILD)/solutions '$(if $(RACE_CHECK),$(RACES)/solutions)' $(SOLUTIONS)

$(RACES)/%: ch21_csr/%.cu
	@mkdir -p $(@D)
	$(RACE_COMPILE) $< -o $@

$(RACES)/%: ch14_spmv/%.cu
	@mkdir -p $(@D)
	$(RACE_COMPILE) $< -o $@

.SECONDEXPANSION:
$(RACES)/planted/%.cu: $$(call planted_from,$$*) tests/plant_race.sh
	tests/plant_race.sh $< $@

# The planted copy's includes are found beside its original.
$(RACES)/planted/%: $(RACES)/planted/%.cu
	$(RACE_COMPILE) -I $(dir $(call planted_from,$*)) $< -o $@

test: $(RACE_TEST_BINARIES)

# tests/test_figure_data.cpp runs the degree histogram tool too.
test: $(BUILD)/degree_histogram

# Every kernel program and every reference solution with its threads run at once under
# ThreadSanitizer, on its default input: each must be race-free and pass its self-check. Then the
# planted races, which each must be reported at its planted line.
races: cuda-note
ifeq ($(RACE_CHECK),)
	@echo "races: $(CXX) cannot link with -fsanitize=thread (libtsan is missing), so nothing was checked"
else
	@$(MAKE) --no-print-directory $(RACE_PROGRAMS) $(RACE_SOLUTIONS) $(RACE_TEST_BINARIES) $(BUILD)/tests/test_races
	@JOBS=$(RACE_JOBS) tests/race_check.sh $(RACE_PROGRAMS) $(RACE_SOLUTIONS)
	@echo; echo "---- the planted races"
	@tests/run_test_binaries.sh '' $(BUILD)/tests/test_races
endif

# compute-sanitizer's four tools on every kernel program, with the default input and with
# --scale 12, several at a time; each kernel runs once (SUITE_TIMED_RUNS=1). GPU only.
sanitize: all
	@test -n "$(SANITIZER)" || { echo "compute-sanitizer not found"; exit 2; }
	@SANITIZER="$(SANITIZER)" BUILD="$(BUILD)" JOBS="$(SANITIZE_JOBS)" \
	  tests/sanitize_programs.sh "$(SANITIZE_TOOLS)" "$(SANITIZE_INPUTS)" $(SANITIZE_PROGRAMS)

# libFuzzer on the matrix reader for SECONDS seconds, seeded with the files of data/.
fuzz: $(BUILD)/fuzz_reader
	@mkdir -p $(BUILD)/fuzz-corpus
	@for f in data/*.mtx data/*.csv; do \
	  { printf '\001'; cat $$f; } > $(BUILD)/fuzz-corpus/odd-$$(basename $$f); \
	  { printf '\002'; cat $$f; } > $(BUILD)/fuzz-corpus/even-$$(basename $$f); done
	$(BUILD)/fuzz_reader -max_total_time=$(SECONDS) -max_len=16384 -rss_limit_mb=1024 \
	  -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz- $(BUILD)/fuzz-corpus

$(BUILD)/fuzz_reader: tests/fuzz/fuzz_reader.cpp $(wildcard common/*.h)
	@mkdir -p $(BUILD)
	@command -v $(FUZZ_CXX) >/dev/null || { echo "make fuzz needs clang: apt-get install clang libclang-rt-14-dev"; exit 2; }
	$(FUZZ_CXX) -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined \
	  -fno-sanitize-recover=undefined $< -o $@

# The degree-skew sweep (GPU only; says so and exits 0 without one): the numbered programs at
# --scale BENCH_SCALE for each skew, their timing: lines collected into notes/bench/*.csv.
BENCH_SCALE ?= 22
# After a change to some programs alone: BENCH_PROGRAMS="145_regular_formats_kernel" times those,
# and BENCH_OTHERS_FROM=notes/bench/sweep-....csv copies the other programs' rows from that sweep.
bench: all
	@python3 bench/sweep.py --scale $(BENCH_SCALE) --build $(BUILD) \
	  $(if $(BENCH_PROGRAMS),--programs $(BENCH_PROGRAMS)) \
	  $(if $(BENCH_OTHERS_FROM),--others-from $(BENCH_OTHERS_FROM))

# The interpreter for make plots; one without matplotlib falls back to /usr/bin/python3 where
# that has it (bench/python_with_matplotlib.sh).
PYTHON ?= python3
# The figures of the newest sweep (or BENCH_CSV=...) in notes/figures/ (matplotlib; each stamped
# with the sweep's date, device and commit), and the notes' tables from their committed CSVs, the
# newest sweep's from it (bench/notes_tables.py).
BENCH_CSV ?=
plots:
	@PYTHON="$(PYTHON)" bench/python_with_matplotlib.sh bench/plots.py $(BENCH_CSV) && \
	  $(PYTHON) bench/notes_tables.py $(BENCH_CSV)

# The lesson figures in notes/figures/lesson_*.png: the programs write the arrays of their book
# example and the elements that each thread touches (--figure-data FILE), in emulation where there
# is no GPU; the kernel programs run in order A, so that the layouts that atomics decide come out
# the same every time. bench/figures.py draws them, with the degree histograms of the sweep's
# graphs at FIGURE_SCALE (build/degree_histogram) and the build's times from the newest sweep CSV
# (or BENCH_CSV=...), with nvcc or without it.
FIGURE_DATA := $(BUILD)/figure-data
FIGURE_SCALE ?= 16
# The programs that draw a figure are those that programs.txt marks figure=.
FIGURE_PROGRAMS := $(shell awk '/^[0-9]/ { for (i = 2; i <= NF; ++i) \
                                              if ($$i ~ /^figure=/) print $$1 }' programs.txt)
FIGURE_BUILT := $(sort $(FIGURE_PROGRAMS))

$(BUILD)/degree_histogram: bench/degree_histogram.cpp
	@mkdir -p $(BUILD)
	$(CXX) $(CXXFLAGS) $< -o $@

figures: cuda-note $(addprefix $(BUILD)/,$(FIGURE_BUILT)) $(BUILD)/degree_histogram
	@rm -rf $(FIGURE_DATA) && mkdir -p $(FIGURE_DATA)
	@for p in $(FIGURE_BUILT); do \
	  case $$p in *_kernel) order=--order=A;; *) order=;; esac; \
	  echo "---- $(BUILD)/$$p $${order:+$$order }--figure-data $(FIGURE_DATA)/$${p%%_*}.json"; \
	  $(BUILD)/$$p $$order --quiet --figure-data $(FIGURE_DATA)/$${p%%_*}.json || exit 1; \
	done
	@PYTHON="$(PYTHON)" bench/python_with_matplotlib.sh bench/figures.py --data $(FIGURE_DATA) \
	  --degree-tool $(BUILD)/degree_histogram --scale $(FIGURE_SCALE) \
	  $(if $(BENCH_CSV),--csv $(BENCH_CSV))

# The slides: notes/slides/ch21_csr.pdf and ch14_spmv.pdf, each chapter's figures of notes/figures/
# one a page in the order of its lessons, each under its one-line message (bench/slides.py's
# SLIDES; matplotlib alone). make plots and make figures draw the figures first.
slides:
	@PYTHON="$(PYTHON)" bench/python_with_matplotlib.sh bench/slides.py

# Nsight Compute's sectors per element loaded for 144's four mappings, each array apart from the
# others and from the x gather (GPU and ncu only): bench/ncu_sectors.py profiles one probe kernel
# per mapping and array (bench/load_probes.cu). NCU_SECTORS_INPUT sets the probes' input.
NCU ?= $(or $(shell command -v ncu 2>/dev/null),$(wildcard $(CUDA_HOME)/bin/ncu))
NCU_SECTORS_INPUT ?= --scale 16
$(BUILD)/load_probes: bench/load_probes.cu $(BUILD)/nvcc-flags
	$(NVCC) $(NVCCFLAGS) $< -o $@ $(NVLIBS)

ncu-sectors:
	@if test -z "$(NCU)"; then \
	  echo "ncu-sectors: ncu (Nsight Compute) is not installed, so nothing was measured"; \
	else \
	  $(MAKE) --no-print-directory $(BUILD)/load_probes && \
	  python3 bench/ncu_sectors.py --ncu "$(NCU)" --build $(BUILD) -- $(NCU_SECTORS_INPUT); \
	fi

# The figures that PROGRAM's proof file should give .with_memory (bytes per entry, per row, and
# the GPU's fixed part): bench/memory_figures.py runs it at each of MEMORY_SCALES and on a
# --matrix file of another shape, fits its peaks, and prints them beside the figures it holds.
MEMORY_SCALES ?= 14 16
memory-figures:
	@test -n "$(PROGRAM)" || { echo "make memory-figures PROGRAM=NAME, e.g. PROGRAM=143_spmv_csr_kernel"; exit 2; }
	@$(MAKE) --no-print-directory $(BUILD)/$(PROGRAM)
	@python3 bench/memory_figures.py --build $(BUILD) $(MEMORY_SCALES:%=--scale %) $(PROGRAM)

help:
	@echo "make              build every program (CUDA ones only where nvcc exists)"
	@echo "make run          run every program in order, then print 'programs: N passed, M failed'"
	@echo "make test         build and run the Catch2 tests ([gpu] tests only where a GPU is;"
	@echo "                  TEST_ARGS='[143]' passes Catch2 arguments to every test binary)"
	@echo "make NAME         build one program, e.g. make 115_csr_concurrent_construction_kernel"
	@echo "make exercises    build the self-check exercises (ch*/exercises/) and say which are solved;"
	@echo "                  make NAME builds one, e.g. make ex21_1_csc_scatter"
	@echo "make exercise-solutions  the same with the reference solutions (solutions/); fails unless"
	@echo "                  every one is solved"
	@echo "make races        every kernel program and reference solution built with ThreadSanitizer, its"
	@echo "                  threads run on host threads at once: each must be race-free, and the"
	@echo "                  planted races must be reported (no GPU needed; RACE_JOBS runs at a time)"
	@echo "make sanitize     compute-sanitizer memcheck, racecheck, synccheck and initcheck on every"
	@echo "                  kernel program, default input and --scale 12 (GPU only; SANITIZE_PROGRAMS,"
	@echo "                  SANITIZE_TOOLS and SANITIZE_INPUTS='default,--scale 14' narrow or widen it)"
	@echo "make bench        the degree-skew sweep of the kernels' timings into notes/bench/ (GPU only)"
	@echo "make plots        its figures in notes/figures/ (matplotlib; PYTHON=... chooses the interpreter),"
	@echo "                  and the notes' tables"
	@echo "make figures      the lesson figures, notes/figures/lesson_*.png, drawn from the programs'"
	@echo "                  own data on the book's examples (--figure-data; no GPU needed; PYTHON=...)"
	@echo "make slides       notes/slides/ch21_csr.pdf and ch14_spmv.pdf: the figures, one a page"
	@echo "                  in the lessons' order, each under its one-line message (matplotlib)"
	@echo "make memory-figures PROGRAM=NAME  the .with_memory figures that NAME's peaks give, beside"
	@echo "                  those its proof file holds (MEMORY_SCALES='14 16' sets the --scale runs)"
	@echo "make fuzz         libFuzzer on the matrix reader for SECONDS seconds (default 60; needs clang)"
	@echo "make ncu-sectors  Nsight Compute's sectors per element of 144's loads, array by array (GPU, ncu)"
	@echo "make clean        remove $(BUILD)/"
	@echo "CUDA_ARCH=...     native (default with a GPU), compute_75 (default without), sm_90, all"
	@echo "CATCH2_INCLUDE=-I/dir   where catch2/catch.hpp is not on the default include path"
	@echo "programs:"
	@for p in $(sort $(CPU_PROGRAMS) $(GPU_PROGRAMS)); do echo "  $$p"; done
	@echo "exercises:"
	@for e in $(EXERCISES); do echo "  $$e"; done

clean:
	rm -rf $(BUILD)

.PRECIOUS: $(BUILD)/tests/%.o $(RACES)/planted/%.cu

-include $(wildcard $(BUILD)/*.d $(BUILD)/tests/*.d)
-include $(wildcard $(BUILD)/exercises/*.d $(BUILD)/solutions/*.d)
-include $(wildcard $(RACES)/*.d $(RACES)/*/*.d)
