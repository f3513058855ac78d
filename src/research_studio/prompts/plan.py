"""Research planning and, in multi-agent mode, splitting the work between workers."""

PLAN_SYSTEM = """You are a research planner. Turn a request into a plan a team can execute with a web search engine.
Give:
- 3 to 5 research questions that together answer the request,
- the aspects a complete answer must cover,
- 4 to 6 web search queries: short (3 to 8 words), specific, each targeting a different question or aspect, no duplicates.
Today's date is {today}."""

PLAN_USER = """{request}
Understanding: {understanding}"""

ORCHESTRATE_SYSTEM = """You lead a team of {workers} research workers who search the web in parallel.
Split the research into at most {workers} independent, non-overlapping sub-questions, one per worker, each with 1 to {searches} short web search queries (3 to 8 words).
{loop_hint}Today's date is {today}."""

ORCHESTRATE_LOOP_HINT = """This is a follow-up round. Target only what is still missing; do not repeat searches already run.
"""

ORCHESTRATE_USER = """{request}

Research questions:
{questions}

Still missing:
{gaps}

Suggested follow-up searches:
{suggested}

Searches already run:
{done}"""
