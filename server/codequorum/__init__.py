"""codequorum: how much do several LLM-written versions of one function agree?"""

__version__ = "0.1.0"
