"""Type stubs of the inswitch binding (docs/python.md)."""

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

__version__: str

JSON = Union[None, bool, int, float, str, List["JSON"], Dict[str, "JSON"]]
Operand = Union[int, float, str]

def reduce(op: Union[str, int], a: Union[Operand, Sequence[Operand]], b: Union[Operand, Sequence[Operand]], **fields: JSON) -> Dict[str, Any]:
    """One reduction, bit-exact as the engine: the same object as one `inswitch reduce --batch` response
    line. `fields`: mode ("assoc"/"ieee"), a_rc/b_rc, a_sfa/b_sfa, a_op/b_op, and for FLT_REPSUM a_m/b_m,
    a_oflow_id/b_oflow_id (docs/blocks/reduce_unit.md §CLI). Raises ValueError with the model's message."""

def decode(kind: str, data: bytes) -> Dict[str, Any]:
    """Every field of a frame: the same object as one `inswitch decode --kind KIND --json` line.
    kind: one of frame_kinds(). Raises ValueError with the codec's message on a malformed frame."""

def encode(kind: str, fields: Mapping[str, Any]) -> bytes:
    """A frame from its fields, emitted by the codec (docs/python.md §encode). Raises ValueError with the
    codec's message, or naming the field, on an unknown field or a value that does not fit.

    tlp, flit: the object decode() returns (whole, or its "tlp" / "flit" member), so
    encode(kind, decode(kind, b)) == b; a missing field is 0, Length follows the payload, the ECRC (TD /
    TS=001) is computed unless given; every key given must read back the same from the encoded frame.
    portals, soft-portals, dllp, collective: the whole decode() object (every key must read back the
    same), or the Rust struct's field names, nested as the structs nest; missing = 0; checksums computed
    unless given."""

def frame_kinds() -> List[str]:
    """Kinds decode() accepts: tlp, flit, dllp, portals, soft-portals, collective."""

def blocks() -> List[Tuple[str, str]]:
    """(name, summary) of every block of the registry."""

class Block:
    """A clocked block model from the registry; step() is one rising clock edge."""

    def __init__(self, name: str, **params: int) -> None:
        """The block at these RTL parameters (the others at their RTL defaults). Raises ValueError for an
        unknown block or parameter, or a value the model does not implement."""
    @property
    def name(self) -> str: ...
    def params(self) -> Dict[str, int]:
        """Every RTL parameter's value, derived ones included."""
    def ports(self) -> List[Tuple[str, str, int]]:
        """(name, "input" | "output", width in bits): inputs first, then outputs; no clk."""
    def step(self, inputs: Union[None, Mapping[str, int], Sequence[Optional[int]]] = None) -> Dict[str, int]:
        """Sets the given inputs (the others keep their value; all or none are applied), takes one rising
        edge and returns every output as it was just before it. `inputs`: a dict {name: int}, or a list /
        tuple of every input in ports() order (None keeps that input; the faster form). Raises KeyError
        for an unknown port, ValueError for an output, a value that does not fit the port or a list of
        the wrong length, TypeError for a non-int."""
    def settle(self, inputs: Union[None, Mapping[str, int], Sequence[Optional[int]]] = None) -> Dict[str, int]:
        """The outputs for these inputs now, without a clock edge."""
    def reset(self) -> None:
        """Back to power-on: every register, input and output 0."""
