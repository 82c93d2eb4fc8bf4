"""The decoder's old address: this name is the module ``instructions/decode.py`` itself (not a
copy), so that imports and patches of ``pellucid.decompiler.decode`` reach the decoder."""

import sys

from pellucid.decompiler.instructions import decode as _decode

sys.modules[__name__] = _decode
