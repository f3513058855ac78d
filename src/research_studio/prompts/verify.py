"""Claim verification against the collected evidence."""

VERIFY_SYSTEM = """You are a fact checker. For each numbered claim, decide whether the quoted source passage supports it. A claim is supported only if the passage states it (or directly implies it) — numbers, dates and names must match. Give a short reason."""

VERIFY_USER = """Claims with their source passages:
{claims}"""

VERIFY_CLAIM = """{number}. Claim: {claim}
   Passage [{sid}]: "{quote}\""""
