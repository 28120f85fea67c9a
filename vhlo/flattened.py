"""StableHLO struct attributes that VHLO keeps as flat attributes of their op, in one table for both
directions: `stablehlo-legalize-to-vhlo` flattens `#stablehlo.conv<...>`, `#stablehlo.gather<...>`...
into one VHLO attribute per field, `vhlo-legalize-to-stablehlo` regroups them (upstream's
VhloOps.td / StablehloLegalizeToVhlo.cpp)."""

from __future__ import annotations

CONV_FIELDS = (
    "input_batch_dimension",
    "input_feature_dimension",
    "input_spatial_dimensions",
    "kernel_input_feature_dimension",
    "kernel_output_feature_dimension",
    "kernel_spatial_dimensions",
    "output_batch_dimension",
    "output_feature_dimension",
    "output_spatial_dimensions",
)
GATHER_FIELDS = (
    "offset_dims",
    "collapsed_slice_dims",
    "operand_batching_dims",
    "start_indices_batching_dims",
    "start_index_map",
    "index_vector_dim",
)
SCATTER_FIELDS = (
    "update_window_dims",
    "inserted_window_dims",
    "input_batching_dims",
    "scatter_indices_batching_dims",
    "scatter_dims_to_operand_dims",
    "index_vector_dim",
)
DOT_FIELDS = (
    "lhs_batching_dimensions",
    "rhs_batching_dimensions",
    "lhs_contracting_dimensions",
    "rhs_contracting_dimensions",
)
ALGORITHM_FIELDS = (
    "lhs_precision_type",
    "rhs_precision_type",
    "accumulation_type",
    "lhs_component_count",
    "rhs_component_count",
    "num_primitive_operations",
    "allow_imprecise_accumulation",
)
CHANNEL_FIELDS = ("channel_id", "channel_type")

FLATTENED: dict[str, tuple[tuple[str, str, tuple[str, ...]], ...]] = {
    "convolution": (("dimension_numbers", "conv", CONV_FIELDS),),
    "dynamic_conv": (("dimension_numbers", "conv", CONV_FIELDS),),
    "gather": (("dimension_numbers", "gather", GATHER_FIELDS),),
    "dynamic_gather": (("dimension_numbers", "gather", GATHER_FIELDS),),
    "scatter": (("scatter_dimension_numbers", "scatter", SCATTER_FIELDS),),
    "dot_general": (
        ("dot_dimension_numbers", "dot", DOT_FIELDS),
        ("algorithm", "dot_algorithm", ALGORITHM_FIELDS),
    ),
    "send": (("channel_handle", "channel_handle", CHANNEL_FIELDS),),
    "recv": (("channel_handle", "channel_handle", CHANNEL_FIELDS),),
}
"""Op family -> (StableHLO attribute, struct mnemonic, the flat VHLO attributes in field order)."""

FIELD_OF = {"channel_id": "handle", "channel_type": "type"}
"""Flat VHLO attribute -> struct field, where the names differ."""

CHANNEL_ID_ONLY = frozenset(
    {
        "all_gather",
        "all_reduce",
        "all_to_all",
        "collective_permute",
        "reduce_scatter",
        "collective_broadcast",
        "collective_reduce",
    }
)
"""Op families whose `#stablehlo.channel_handle` VHLO keeps as its handle only (`channel_id`)."""
