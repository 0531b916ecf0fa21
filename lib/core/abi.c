/* The layout of the public structs bindings mirror (snapkit/abi.h). */
#include <string.h>

#include "snapkit/snapkit.h"
#include "snapkit/util.h"

typedef struct abi_field {
    const char *name;
    size_t offset, size;
} abi_field;

typedef struct abi_struct {
    const char *name;
    size_t size;
    int nfields;
    const abi_field *fields;
} abi_struct;

#define F(type, member) { #member, offsetof(type, member), sizeof(((type *)0)->member) }
#define S(type, list) { #type, sizeof(type), (int)(sizeof(list) / sizeof(list[0])), list }

static const abi_field error_fields[] = {
    F(sk_error, code), F(sk_error, offset), F(sk_error, record), F(sk_error, line),
    F(sk_error, column), F(sk_error, path), F(sk_error, message)};
static const abi_field column_fields[] = {
    F(sk_column, name), F(sk_column, type), F(sk_column, data), F(sk_column, nlabels),
    F(sk_column, labels)};
static const abi_field mem_stats_fields[] = {
    F(sk_mem_stats, total), F(sk_mem_stats, current), F(sk_mem_stats, peak),
    F(sk_mem_stats, calls)};
static const abi_field thread_budget_fields[] = {
    F(sk_thread_budget, threads), F(sk_thread_budget, requested), F(sk_thread_budget, owned),
    F(sk_thread_budget, machine), F(sk_thread_budget, affinity),
    F(sk_thread_budget, limited_by)};
static const abi_field progress_fields[] = {F(sk_progress, fn), F(sk_progress, ctx)};
static const abi_field json_fields[] = {
    F(sk_json, buf), F(sk_json, len), F(sk_json, cap), F(sk_json, depth),
    F(sk_json, need_comma), F(sk_json, pretty), F(sk_json, failed)};
static const abi_field units_fields[] = {
    F(sk_units, boxlen), F(sk_units, unit_l), F(sk_units, unit_d), F(sk_units, unit_t),
    F(sk_units, unit_m), F(sk_units, unit_v), F(sk_units, unit_p), F(sk_units, aexp),
    F(sk_units, h)};
static const abi_field region_request_fields[] = {
    F(sk_region_request, has_range), F(sk_region_request, range),
    F(sk_region_request, has_center), F(sk_region_request, center_is_bc),
    F(sk_region_request, center), F(sk_region_request, unit), F(sk_region_request, shape),
    F(sk_region_request, inverse), F(sk_region_request, radius),
    F(sk_region_request, half_height), F(sk_region_request, axis)};
static const abi_field shape_fields[] = {
    F(sk_shape, kind), F(sk_shape, inverse), F(sk_shape, center), F(sk_shape, axis),
    F(sk_shape, r_in), F(sk_shape, r_out), F(sk_shape, half_height)};
static const abi_field selection_fields[] = {
    F(sk_selection, lmax), F(sk_selection, has_box), F(sk_selection, lo), F(sk_selection, hi),
    F(sk_selection, nvars), F(sk_selection, vars), F(sk_selection, has_family),
    F(sk_selection, family), F(sk_selection, has_center), F(sk_selection, center),
    F(sk_selection, shape)};
static const abi_field read_options_fields[] = {
    F(sk_read_options, threads), F(sk_read_options, progress),
    F(sk_read_options, with_refined), F(sk_read_options, share_rank),
    F(sk_read_options, share_count)};
static const abi_field read_stats_fields[] = {
    F(sk_read_stats, files_opened), F(sk_read_stats, bytes_read), F(sk_read_stats, seconds),
    F(sk_read_stats, bytes_allocated)};
static const abi_field write_options_fields[] = {
    F(sk_store_write_options, compress), F(sk_store_write_options, threads),
    F(sk_store_write_options, chunk_rows), F(sk_store_write_options, progress),
    F(sk_store_write_options, fail_after_bytes)};
static const abi_field write_stats_fields[] = {
    F(sk_store_write_stats, ntables), F(sk_store_write_stats, rows),
    F(sk_store_write_stats, chunks), F(sk_store_write_stats, bytes_raw),
    F(sk_store_write_stats, bytes_file), F(sk_store_write_stats, seconds)};
static const abi_field convert_options_fields[] = {
    F(sk_store_convert_options, components), F(sk_store_convert_options, selection),
    F(sk_store_convert_options, with_coarse), F(sk_store_convert_options, write),
    F(sk_store_convert_options, read_progress)};
static const abi_field convert_stats_fields[] = {
    F(sk_store_convert_stats, ntables), F(sk_store_convert_stats, names),
    F(sk_store_convert_stats, rows), F(sk_store_convert_stats, refined_rows),
    F(sk_store_convert_stats, bytes_source), F(sk_store_convert_stats, bytes_raw),
    F(sk_store_convert_stats, bytes_file), F(sk_store_convert_stats, read_seconds),
    F(sk_store_convert_stats, write_seconds), F(sk_store_convert_stats, bytes_allocated),
    F(sk_store_convert_stats, fallbacks)};
static const abi_field image_options_fields[] = {
    F(sk_image_options, log_scale), F(sk_image_options, has_range),
    F(sk_image_options, vmin), F(sk_image_options, vmax)};
static const abi_field atoms_options_fields[] = {
    F(sk_atoms_options, threads), F(sk_atoms_options, atom_style),
    F(sk_atoms_options, gzip_level), F(sk_atoms_options, no_fsync)};
static const abi_field atoms_frame_info_fields[] = {
    F(sk_atoms_frame_info, offset), F(sk_atoms_frame_info, line),
    F(sk_atoms_frame_info, natoms), F(sk_atoms_frame_info, timestep)};
static const abi_field xyz_value_fields[] = {
    F(sk_xyz_value, type), F(sk_xyz_value, ndim), F(sk_xyz_value, shape), F(sk_xyz_value, n),
    F(sk_xyz_value, data)};
static const abi_field column_stats_fields[] = {
    F(sk_column_stats, name), F(sk_column_stats, is_cell_index), F(sk_column_stats, min),
    F(sk_column_stats, max), F(sk_column_stats, sum), F(sk_column_stats, abs_sum),
    F(sk_column_stats, volume_sum), F(sk_column_stats, abs_volume_sum)};
static const abi_field table_stats_fields[] = {
    F(sk_table_stats, rows), F(sk_table_stats, is_cells), F(sk_table_stats, levels),
    F(sk_table_stats, ncols), F(sk_table_stats, cols)};
static const abi_field wstats_column_fields[] = {
    F(sk_wstats_column, name), F(sk_wstats_column, count), F(sk_wstats_column, weight_sum),
    F(sk_wstats_column, mean), F(sk_wstats_column, std), F(sk_wstats_column, skewness),
    F(sk_wstats_column, kurtosis), F(sk_wstats_column, min), F(sk_wstats_column, max),
    F(sk_wstats_column, median), F(sk_wstats_column, percentiles)};
static const abi_field wstats_fields[] = {
    F(sk_wstats, weight), F(sk_wstats, rows), F(sk_wstats, npercentiles),
    F(sk_wstats, percentiles), F(sk_wstats, ncols), F(sk_wstats, cols)};
static const abi_field clumps_options_fields[] = {
    F(sk_clumps_options, field), F(sk_clumps_options, threshold), F(sk_clumps_options, unit),
    F(sk_clumps_options, finder), F(sk_clumps_options, relevance),
    F(sk_clumps_options, min_cells), F(sk_clumps_options, threads),
    F(sk_clumps_options, linking_length), F(sk_clumps_options, length_unit),
    F(sk_clumps_options, bound), F(sk_clumps_options, theta), F(sk_clumps_options, softening),
    F(sk_clumps_options, min_delta), F(sk_clumps_options, mu),
    F(sk_clumps_options, bound_only)};
static const abi_field frame_fields[] = {
    F(sk_frame, has_center), F(sk_frame, center), F(sk_frame, bulk_velocity), F(sk_frame, axis)};
static const abi_field derive_options_fields[] = {
    F(sk_derive_options, gamma), F(sk_derive_options, mu),
    F(sk_derive_options, hydrogen_fraction)};
static const abi_field center_options_fields[] = {
    F(sk_center_options, method), F(sk_center_options, field), F(sk_center_options, components),
    F(sk_center_options, shrink_factor), F(sk_center_options, shrink_min)};
static const abi_field center_result_fields[] = {
    F(sk_center_result, center), F(sk_center_result, rows), F(sk_center_result, component),
    F(sk_center_result, value), F(sk_center_result, mass), F(sk_center_result, iterations),
    F(sk_center_result, radius), F(sk_center_result, final_rows)};
static const abi_field totals_frame_fields[] = {
    F(sk_totals_frame, ref), F(sk_totals_frame, about_com), F(sk_totals_frame, has_velocity),
    F(sk_totals_frame, velocity)};
static const abi_field totals_fields[] = {
    F(sk_totals, cells), F(sk_totals, particles), F(sk_totals, has_velocity),
    F(sk_totals, boxlen), F(sk_totals, mass), F(sk_totals, volume), F(sk_totals, com),
    F(sk_totals, bulk_velocity), F(sk_totals, center), F(sk_totals, velocity),
    F(sk_totals, angular_momentum), F(sk_totals, angular_momentum_direction)};
static const abi_field profile_options_fields[] = {
    F(sk_profile_options, nbins), F(sk_profile_options, log), F(sk_profile_options, has_range),
    F(sk_profile_options, lo), F(sk_profile_options, hi), F(sk_profile_options, weight),
    F(sk_profile_options, cumulative), F(sk_profile_options, npercentiles),
    F(sk_profile_options, percentiles), F(sk_profile_options, units), F(sk_profile_options, mu)};
static const abi_field cosmology_summary_fields[] = {
    F(sk_cosmology_summary, cosmological), F(sk_cosmology_summary, aexp),
    F(sk_cosmology_summary, redshift), F(sk_cosmology_summary, h),
    F(sk_cosmology_summary, age), F(sk_cosmology_summary, age_today),
    F(sk_cosmology_summary, lookback)};
static const abi_field bins_fields[] = {
    F(sk_bins, n), F(sk_bins, log), F(sk_bins, lo), F(sk_bins, hi), F(sk_bins, start),
    F(sk_bins, step)};
static const abi_field phase_options_fields[] = {
    F(sk_phase_options, x), F(sk_phase_options, y), F(sk_phase_options, z),
    F(sk_phase_options, weight), F(sk_phase_options, nbins), F(sk_phase_options, log),
    F(sk_phase_options, has_range), F(sk_phase_options, lo), F(sk_phase_options, hi),
    F(sk_phase_options, units), F(sk_phase_options, frame), F(sk_phase_options, derive),
    F(sk_phase_options, keep_bytes)};
static const abi_field consumer_fields[] = {
    F(sk_consumer, ctx), F(sk_consumer, begin), F(sk_consumer, batch), F(sk_consumer, ordered)};
static const abi_field h5_options_fields[] = {
    F(sk_h5_options, gzip), F(sk_h5_options, chunk_rows), F(sk_h5_options, fsync)};

static const abi_struct structs[] = {
    S(sk_error, error_fields),
    S(sk_column, column_fields),
    S(sk_mem_stats, mem_stats_fields),
    S(sk_thread_budget, thread_budget_fields),
    S(sk_progress, progress_fields),
    S(sk_json, json_fields),
    S(sk_units, units_fields),
    S(sk_region_request, region_request_fields),
    S(sk_shape, shape_fields),
    S(sk_selection, selection_fields),
    S(sk_read_options, read_options_fields),
    S(sk_read_stats, read_stats_fields),
    S(sk_store_write_options, write_options_fields),
    S(sk_store_write_stats, write_stats_fields),
    S(sk_store_convert_options, convert_options_fields),
    S(sk_store_convert_stats, convert_stats_fields),
    S(sk_image_options, image_options_fields),
    S(sk_atoms_options, atoms_options_fields),
    S(sk_atoms_frame_info, atoms_frame_info_fields),
    S(sk_xyz_value, xyz_value_fields),
    S(sk_column_stats, column_stats_fields),
    S(sk_table_stats, table_stats_fields),
    S(sk_clumps_options, clumps_options_fields),
    S(sk_wstats_column, wstats_column_fields),
    S(sk_wstats, wstats_fields),
    S(sk_frame, frame_fields),
    S(sk_derive_options, derive_options_fields),
    S(sk_center_options, center_options_fields),
    S(sk_center_result, center_result_fields),
    S(sk_totals_frame, totals_frame_fields),
    S(sk_totals, totals_fields),
    S(sk_profile_options, profile_options_fields),
    S(sk_cosmology_summary, cosmology_summary_fields),
    S(sk_bins, bins_fields),
    S(sk_phase_options, phase_options_fields),
    S(sk_consumer, consumer_fields),
    S(sk_h5_options, h5_options_fields),
};

static const abi_struct *find_struct(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < sizeof(structs) / sizeof(structs[0]); i++)
        if (strcmp(structs[i].name, name) == 0)
            return &structs[i];
    return NULL;
}

int sk_abi_struct(const char *name, size_t *size, int *nfields)
{
    const abi_struct *s = find_struct(name);
    if (!s)
        return -1;
    if (size)
        *size = s->size;
    if (nfields)
        *nfields = s->nfields;
    return 0;
}

int sk_abi_field(const char *struct_name, const char *field, size_t *offset, size_t *size)
{
    const abi_struct *s = find_struct(struct_name);
    if (!s || !field)
        return -1;
    for (int i = 0; i < s->nfields; i++) {
        if (strcmp(s->fields[i].name, field) == 0) {
            if (offset)
                *offset = s->fields[i].offset;
            if (size)
                *size = s->fields[i].size;
            return 0;
        }
    }
    return -1;
}

const char *sk_abi_field_name(const char *struct_name, int index)
{
    const abi_struct *s = find_struct(struct_name);
    if (!s || index < 0 || index >= s->nfields)
        return NULL;
    return s->fields[index].name;
}

const char *sk_abi_struct_name(int index)
{
    if (index < 0 || (size_t)index >= sizeof(structs) / sizeof(structs[0]))
        return NULL;
    return structs[index].name;
}
