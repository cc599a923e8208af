"""uac as memory for agent frameworks: tools, a toolset and a store over one user project.

* :mod:`uac.integrations.openai_agents` -- function tools for the OpenAI Agents SDK,
  ``with_memory(agent, project)`` and ``remember_session`` (extra ``openai-agents``);
* :mod:`uac.integrations.pydantic_ai` -- a ``FunctionToolset`` whose project comes
  from the run's dependencies (extra ``pydantic-ai``);
* :mod:`uac.integrations.langgraph` -- LangChain tools and a LangGraph ``BaseStore``
  (extra ``langgraph``).

Each module is a thin layer over one framework-free core (:mod:`._tools`): the four
tools ``search_memory``, ``run_python``, ``ask_memory`` and ``remember``, their
argument checks, the caps on what they return and the text of their errors.  A tool
set is bound to one project; no tool takes a project or a path, so a model cannot
reach another user's memory.  Importing this package loads no framework.
"""
