"""Instructions the structured-output helper adds when a server lacks native schema support."""

SCHEMA_INSTRUCTIONS = """Reply with a single JSON object and nothing else: no prose, no code fences.
The object must conform to this JSON schema:
{schema}"""

REPAIR_REQUEST = """Your previous reply could not be used: {error}
Reply again with only a JSON object that conforms to the schema, fixing that problem."""
