"""attnsig: the companion package of the executable textbook on attention and path
signatures.

One module per concept; import the one you need (``from attnsig import attention``):

* ``attnsig.attention``: softmax, masks, scaled dot-product and multi-head attention
* ``attnsig.positional``: sinusoidal position encodings
* ``attnsig.lowrank``: truncated SVD and best low-rank approximation
* ``attnsig.heads``: what one head computes from a single query; summaries of its
  outputs
* ``attnsig.constructions``: queries that copy one value, average two, survive noisy
  keys
* ``attnsig.bounds``: score gaps and query lengths that guarantee copying and averaging
* ``attnsig.keysets``: structured, adversarial, random and noisy key sets
* ``attnsig.recurrent``: a vanilla RNN, Jacobians and dependency maps, cost counts
* ``attnsig.synthesizer``: synthesizer attention beside key-query-value attention
* ``attnsig.recall``: the hand-built associative-recall transformer (task, model,
  analysis)
* ``attnsig.signature``: truncated path signatures, Chen's identity, Lévy area, time
  augmentation
* ``attnsig.reconstruction``: recovering a path from signature terms of its time
  augmentation
* ``attnsig.explorer``: explorers that work on the static page (pre-drawn frames) and in
  Jupyter
"""

__version__ = "0.1.0"

__all__ = [
    "attention",
    "positional",
    "lowrank",
    "heads",
    "constructions",
    "bounds",
    "keysets",
    "recurrent",
    "synthesizer",
    "recall",
    "signature",
    "reconstruction",
    "explorer",
]


def __getattr__(name: str):
    # `import attnsig; attnsig.signature` works without importing every module up front.
    if name in __all__:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'attnsig' has no attribute {name!r}")
