"""The OpenAI Agents SDK with uac's memory, offline: the SDK's ScriptedModel plays the model.

    python examples/integrations/openai_agents_example.py [ROOT]

With a real model, drop ``model=`` (the SDK's default OpenAI model) or pass your own.
"""

import asyncio
import json

from _demo_project import demo_root
from agents import Agent, RunConfig, Runner, SQLiteSession
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call

from uac.integrations.openai_agents import remember_session, with_memory


async def main() -> None:
    root = demo_root()

    def answer(call):  # the second model call reads what the tool sent back
        output = next(
            i["output"] for i in call.input if isinstance(i, dict) and i.get("type") == "function_call_output"
        )
        return [assistant_message(f"You booked {json.loads(output)['result']} trips in 2023.")]

    model = ScriptedModel(
        [  # what a model would do: count in the sandbox, then answer
            [
                function_call(
                    "run_python",
                    {
                        "code": "result = len([t for t in bookings if t.start_date.year == 2023])",
                        "as_of": None,
                        "include_facts": False,
                    },
                    call_id="count",
                )
            ],
            ModelStep.respond(answer),
        ]
    )
    agent = with_memory(Agent(name="assistant", instructions="Answer briefly.", model=model), "maya", root=root)
    session = SQLiteSession("maya-chat")
    result = await Runner.run(
        agent, "How many trips did I book in 2023?", session=session, run_config=RunConfig(tracing_disabled=True)
    )
    for item in result.new_items:
        if item.type == "tool_call_output_item":
            print("run_python ->", item.output)
    print("answer:", result.final_output)
    print("remembered:", await remember_session(session, "maya", root=root))


if __name__ == "__main__":
    asyncio.run(main())
