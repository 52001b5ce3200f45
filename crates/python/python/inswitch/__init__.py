"""inswitch: the bit-exact Rust model of the inswitch packet engine, for cocotb and pyuvm benches.

See docs/python.md. Everything here is the compiled module ``inswitch._native``.
"""

from inswitch._native import *  # noqa: F401,F403
from inswitch._native import Block, __version__, blocks, decode, encode, frame_kinds, reduce  # noqa: F401
