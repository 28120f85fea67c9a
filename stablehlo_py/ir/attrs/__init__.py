"""StableHLO's struct attributes, one description each (`struct.py` says what a description holds
and derives the text from it; `catalog.py` lists them): `dot.py`, `dot_algorithm.py`, `conv.py`,
`gather.py`, `scatter.py`, `result_accuracy.py`, `output_operand_alias.py`, `channel_handle.py`,
`axis_ref.py`, `replica_group_mesh_axes.py`, `mesh.py` (mesh and mesh_axis, kept as text in the IR),
`type_extensions.py` (the description of ``ir.types.TypeExtensionsAttr``)."""
