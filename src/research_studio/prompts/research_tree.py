"""Research planning for the advanced pipeline: outline and research tree."""

PLANNER_SYSTEM = """You are an expert research planner. Write a plan for the research brief:
- topic: a precise title,
- outline: 4-8 report sections,
- research_tree: primary questions (essential, priority 0.8-1.0) and secondary ones (useful, priority 0.4-0.7), each tied to an outline section, with 2-3 search queries and the source types to target (news, official, academic, legal, analysis, reference).

Search query rules:
- 3-7 words per query,
- put proper nouns in double quotes, e.g. "Great Barrier Reef",
- add a year ({year}) or "latest" to queries about recent developments,
- every query must name the primary subject: {anchor}.
{guidance}Today's date is {today}."""

CLASS_GUIDANCE = {
    "current_events": "This is a current-events query: prefer recent news, official announcements and expert analysis, and include several perspectives.\n",
    "comparison": "This is a comparison: give each option its own questions and add a head-to-head question.\n",
    "person_profile": "This is a person profile: background, work, notable contributions, recent activity.\n",
    "policy_analysis": "This is a policy query: the policy's content, its legal basis, effects, and reactions.\n",
    "comprehensive_overview": "This is a comprehensive investigation: cover definitions, history, current state, evidence, debates and outlook.\n",
}

PLANNER_USER = """Research brief: {brief}

Analysis:
- intent: {intent}
- class: {query_class}
- primary subject: {anchor}
- temporal scope: {temporal_scope}
- domain: {domain}
- suggested questions: {questions}
- suggested outline: {outline}"""
