"""LangGraph with uac's memory, offline: LangChain's fake chat model plays the model.

    python examples/integrations/langgraph_example.py [ROOT]

With a real model, use it bound to the tools: ChatOpenAI(model="gpt-4o-mini").bind_tools(tools).
"""

from _demo_project import demo_root
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from uac.integrations.langgraph import UacStore, memory_tools


def main() -> None:
    root = demo_root()
    tools = memory_tools("maya", root=root)
    llm = GenericFakeChatModel(
        messages=iter(
            [  # what a model would do: compute, then answer
                AIMessage(
                    "",
                    tool_calls=[
                        {
                            "name": "run_python",
                            "id": "sum",
                            "args": {
                                "code": "result = round(sum(t.cost_eur for t in bookings if t.country == 'Japan'), 2)"
                            },
                        }
                    ],
                ),
                AIMessage("That is what your trips to Japan cost."),
            ]
        )
    )

    builder = StateGraph(MessagesState)
    builder.add_node("agent", lambda state: {"messages": [llm.invoke(state["messages"])]})
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", tools_condition)
    builder.add_edge("tools", "agent")
    store = UacStore(root)
    graph = builder.compile(store=store)

    out = graph.invoke({"messages": [HumanMessage("How much did my trips to Japan cost?")]})
    for message in out["messages"][1:]:
        print(f"{message.type}: {message.content}")

    store.put(("maya", "preferences"), "seat", {"content": "Maya prefers window seats."})
    print("store:", [item.value for item in store.search(("maya",), query="Which seat does Maya like?")])
    store.close()


if __name__ == "__main__":
    main()
