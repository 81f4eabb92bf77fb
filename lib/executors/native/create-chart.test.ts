import { describe, expect, it } from "vitest";
import { createChart, type CreateChartInput } from "./create-chart";

const ctx = { signal: new AbortController().signal };

describe("create_chart", () => {
  it("returns the chart as data with explicit null labels and a point count", async () => {
    const input: CreateChartInput = {
      type: "bar",
      title: "Ventes",
      series: [
        {
          name: "2023",
          points: [
            { x: "jan", y: 3 },
            { x: "fév", y: 4.5 },
          ],
        },
        { name: "2024", points: [{ x: "jan", y: -1 }] },
      ],
    };
    await expect(createChart(input, ctx)).resolves.toEqual({
      chart: { type: "bar", title: "Ventes", x_label: null, y_label: null, series: input.series },
      point_count: 3,
    });
  });

  it("keeps labels and numeric x values", async () => {
    const out = await createChart(
      {
        type: "line",
        title: "T",
        x_label: "année",
        y_label: "€",
        series: [{ name: "s", points: [{ x: 2024, y: 1 }] }],
      },
      ctx,
    );
    expect(out.chart).toMatchObject({
      x_label: "année",
      y_label: "€",
      series: [{ name: "s", points: [{ x: 2024, y: 1 }] }],
    });
  });

  it("passes only the documented fields on", async () => {
    const sneaky = {
      type: "area",
      title: "T",
      series: [{ name: "s", points: [{ x: 1, y: 2, html: "<img onerror=x>" }], color: "red" }],
    } as unknown as CreateChartInput;
    const out = await createChart(sneaky, ctx);
    expect(out.chart.series).toEqual([{ name: "s", points: [{ x: 1, y: 2 }] }]);
  });

  it("accepts a pie with one non-negative series", async () => {
    const out = await createChart(
      {
        type: "pie",
        title: "Parts",
        series: [
          {
            name: "p",
            points: [
              { x: "a", y: 0 },
              { x: "b", y: 2 },
            ],
          },
        ],
      },
      ctx,
    );
    expect(out.point_count).toBe(2);
  });

  it("refuses a pie with several series or a negative slice, pointing at the field", async () => {
    const two = { name: "a", points: [{ x: "a", y: 1 }] };
    await expect(createChart({ type: "pie", title: "T", series: [two, two] }, ctx)).rejects.toMatchObject({
      code: "INVALID_ARGUMENTS",
      field: "/series",
      retryable: false,
    });
    const negative = {
      name: "a",
      points: [
        { x: "a", y: 1 },
        { x: "b", y: -2 },
      ],
    };
    await expect(createChart({ type: "pie", title: "T", series: [negative] }, ctx)).rejects.toMatchObject({
      code: "INVALID_ARGUMENTS",
      field: "/series/0/points/1/y",
    });
  });
});
