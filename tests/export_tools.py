"""A test-only tool collection whose arguments use what the built-in tools do
not: nested models, lists, enums, optional arguments with defaults, bounds."""

from typing import Annotated, Literal, Union

import pydantic
from pydantic import Field

from workspace.tools import workspace_tool


class Point(pydantic.BaseModel):
    x: Annotated[int, Field(ge=-100, le=100)]
    y: int = 0
    label: Annotated[str | None, Field(max_length=20)] = None


class Chart(pydantic.BaseModel):
    points: Annotated[list[Point], Field(min_length=1, max_length=50)]
    origin: Point | None = None


class ChartTools:
    def __init__(self, thread_id):
        self.thread_id = thread_id

    @workspace_tool(read_only=True)
    def plot(
        self,
        chart: Chart,
        kind: Literal["line", "bar"] = "line",
        tags: Annotated[list[Annotated[str, Field(min_length=2)]], Field(max_length=5)] = [],  # noqa: B006
        scale: Annotated[float, Field(gt=0, description="How much to zoom.")] = 1.0,
        note: Annotated[str, Field(pattern=r"^[a-z]+$")] = "chart",
    ) -> tuple[str, dict]:
        """Describe a chart without drawing it."""
        return f"{kind} of {len(chart.points)} points", {
            "kind": kind,
            "tags": tags,
            "scale": scale,
            "note": note,
            "origin": chart.origin and chart.origin.model_dump(),
        }


class Circle(pydantic.BaseModel):
    kind: Literal["circle"]
    radius: float


class Square(pydantic.BaseModel):
    kind: Literal["square"]
    side: float


class ShapeTools:
    """Arguments that OpenAI's strict mode cannot express."""

    def __init__(self, thread_id):
        self.thread_id = thread_id

    @workspace_tool(read_only=True)
    def tally(self, counts: dict[str, int]) -> tuple[str, None]:
        """Sum counts by name."""
        return f"{sum(counts.values())} in all", None

    @workspace_tool(read_only=True)
    def area(self, shape: Annotated[Union[Circle, Square], Field(discriminator="kind")]) -> tuple[str, None]:  # noqa: UP007
        """The area of a shape."""
        return str(shape.radius**2 * 3.14159 if shape.kind == "circle" else shape.side**2), None
