// One device type per format: the arrays of a COO or a CSR matrix where the kernels run (see
// here.cuh), uploaded from the host types of sparse_host.h and downloaded back to them.
#pragma once
#include <vector>
#include "here.cuh"
#include "sparse_host.h"

// Row r owns the entries [row_offsets[r], row_offsets[r + 1]) of col_idx and values.
struct DeviceCsr {
    DeviceCsr(const Here& here, const HostCsr& a)
        : num_rows(a.num_rows),
          num_cols(a.num_cols),
          row_offsets(here, a.row_offsets),
          col_idx(here, a.col_idx),
          values(here, a.values) {}
    // An output of the given shape, every byte 0xFF until a kernel writes it.
    DeviceCsr(const Here& here, int rows, int cols, size_t nnz)
        : num_rows(rows),
          num_cols(cols),
          row_offsets(here, static_cast<size_t>(rows) + 1),
          col_idx(here, nnz),
          values(here, nnz) {
        poison();
    }
    void poison() {
        row_offsets.fill_bytes(0xFF);
        col_idx.fill_bytes(0xFF);
        values.fill_bytes(0xFF);
    }
    int nnz() const { return static_cast<int>(col_idx.size()); }
    HostCsr download() const {
        return HostCsr{num_rows, num_cols, row_offsets.download(), col_idx.download(),
                       values.download()};
    }

    int num_rows, num_cols;
    DeviceArray<int> row_offsets, col_idx;
    DeviceArray<float> values;
};

// Entry k is (rows[k], cols[k], values[k]); for a graph, source, destination and weight.
struct DeviceCoo {
    DeviceCoo(const Here& here, const HostCoo& a)
        : num_rows(a.num_rows),
          num_cols(a.num_cols),
          rows(here, a.rows),
          cols(here, a.cols),
          values(here, a.values) {}
    // An output of the given shape, every byte 0xFF until a kernel writes it.
    DeviceCoo(const Here& here, int rows_, int cols_, size_t nnz)
        : num_rows(rows_), num_cols(cols_), rows(here, nnz), cols(here, nnz), values(here, nnz) {
        rows.fill_bytes(0xFF);
        cols.fill_bytes(0xFF);
        values.fill_bytes(0xFF);
    }
    int nnz() const { return static_cast<int>(rows.size()); }
    HostCoo download() const {
        return coo_of(num_rows, num_cols, rows.download(), cols.download(), values.download());
    }

    int num_rows, num_cols;
    DeviceArray<int> rows, cols;
    DeviceArray<float> values;
};
