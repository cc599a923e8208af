"""pydantic-ai with uac's memory, offline: pydantic-ai's FunctionModel plays the model.

    python examples/integrations/pydantic_ai_example.py [ROOT]

With a real model, give its name instead: Agent("openai:gpt-4o-mini", ...).
"""

from _demo_project import demo_root
from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import FunctionModel

from uac.integrations.pydantic_ai import MemoryDeps, memory_toolset


def model(messages, info):
    """Search the memory first, then answer from what came back."""
    returned = [p for p in messages[-1].parts if isinstance(p, ToolReturnPart)]
    if not returned:
        return ModelResponse(parts=[ToolCallPart("search_memory", {"query": "What is my cat called?", "k": 3})])
    hits = returned[0].content["results"]
    return ModelResponse(parts=[TextPart("From your memory: " + " | ".join(hit["text"] for hit in hits))])


def main() -> None:
    root = demo_root()
    agent = Agent(FunctionModel(model), deps_type=MemoryDeps, toolsets=[memory_toolset()])
    result = agent.run_sync("What is my cat called?", deps=MemoryDeps("maya", root=root))
    print("answer:", result.output)


if __name__ == "__main__":
    main()
