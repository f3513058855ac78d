"""What the structured-output helper tells a model when a server lacks native schema support."""

from __future__ import annotations

SCHEMA_LABEL = "The object must conform to this JSON schema:"

SCHEMA_INSTRUCTIONS = f"""Reply with a single JSON object and nothing else: no prose, no code fences.
{SCHEMA_LABEL}
{{schema}}"""

REPAIR_REQUEST = """Your previous reply could not be used: {error}
Reply again with only a JSON object that conforms to the schema, fixing that problem."""
