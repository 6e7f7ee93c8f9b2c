// ELL, HYB, JDS and DIA where the kernels run (see common/here.cuh): device copies of the host
// formats of regular_formats.h, as common/device_formats.cuh holds COO and CSR. The kernels that
// read them are in their lessons: ELL's in 144, JDS's and DIA's in 145.
#pragma once
#include "../common/device_formats.cuh"
#include "regular_formats.h"

// Each row's entry count, and the slots column-major.
struct DeviceEll {
    DeviceEll(const Here& here, const HostEll& e)
        : num_rows(e.num_rows),
          nnz_per_row(here, e.nnz_per_row),
          col_idx(here, e.col_idx),
          values(here, e.values) {}
    int num_rows;
    DeviceArray<int> nnz_per_row, col_idx;
    DeviceArray<float> values;
};

// The ELL part, then the COO part.
struct DeviceHyb {
    DeviceHyb(const Here& here, const HostHyb& h) : ell(here, h.ell), coo(here, h.coo) {}
    DeviceEll ell;
    DeviceCoo coo;
};

struct DeviceJds {
    DeviceJds(const Here& here, const HostJds& j)
        : num_rows(j.num_rows),
          num_diagonals(j.num_diagonals()),
          row_perm(here, j.row_perm),
          diag_ptrs(here, j.diag_ptrs),
          col_idx(here, j.col_idx),
          values(here, j.values) {}
    int num_rows, num_diagonals;
    DeviceArray<int> row_perm, diag_ptrs, col_idx;
    DeviceArray<float> values;
};

// The offsets, one per diagonal, and the slots column-major.
struct DeviceDia {
    DeviceDia(const Here& here, const HostDia& d)
        : num_rows(d.num_rows),
          num_cols(d.num_cols),
          num_diagonals(d.num_diagonals()),
          offsets(here, d.offsets),
          data(here, d.data) {}
    int num_rows, num_cols, num_diagonals;
    DeviceArray<int> offsets;
    DeviceArray<float> data;
};
