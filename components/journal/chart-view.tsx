"use client";

import {
  Area,
  AreaChart,
  Bar,
  BarChart,
  CartesianGrid,
  Cell,
  Legend,
  Line,
  LineChart,
  Pie,
  PieChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { Card } from "@/components/ui/card";

// A create_chart result drawn with recharts. The chart is data from a tool
// (untrusted): every label goes through React as text, nothing as markup.

export interface ChartData {
  type: "bar" | "line" | "pie" | "area";
  title: string;
  x_label: string | null;
  y_label: string | null;
  series: { name: string; points: { x: string | number; y: number }[] }[];
}

const palette = [
  "#2456d6",
  "#0f9d76",
  "#d97706",
  "#c2410c",
  "#7c3aed",
  "#0891b2",
  "#be123c",
  "#4d7c0f",
  "#475569",
  "#a16207",
];

/** One row per x value, one column per series (s0, s1…: series names stay labels, never keys). */
function rows(chart: ChartData) {
  const byX = new Map<string, Record<string, string | number>>();
  chart.series.forEach((series, s) => {
    for (const point of series.points) {
      const key = String(point.x);
      const row = byX.get(key) ?? { x: key };
      row[`s${s}`] = point.y;
      byX.set(key, row);
    }
  });
  return [...byX.values()];
}

export function isChartData(value: unknown): value is ChartData {
  const chart = value as ChartData | null;
  return Boolean(
    chart &&
    typeof chart === "object" &&
    ["bar", "line", "pie", "area"].includes(chart.type) &&
    Array.isArray(chart.series),
  );
}

export function ChartView({ chart, height = 260 }: { chart: ChartData; height?: number }) {
  const data = rows(chart);
  const axes = (
    <>
      <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
      <XAxis
        dataKey="x"
        tick={{ fontSize: 12 }}
        label={chart.x_label ? { value: chart.x_label, position: "insideBottom", offset: -4, fontSize: 12 } : undefined}
      />
      <YAxis
        tick={{ fontSize: 12 }}
        label={chart.y_label ? { value: chart.y_label, angle: -90, position: "insideLeft", fontSize: 12 } : undefined}
      />
      <Tooltip />
      <Legend />
    </>
  );
  return (
    <Card as="figure" padding="sm" data-testid="tool-chart">
      <figcaption className="mb-2 text-sm font-medium text-slate-800">{chart.title}</figcaption>
      <div style={{ height }} role="img" aria-label={`Graphique ${chart.type} : ${chart.title}`}>
        <ResponsiveContainer width="100%" height="100%">
          {chart.type === "pie" ? (
            <PieChart>
              <Pie
                data={chart.series[0]?.points.map((p) => ({ name: String(p.x), value: p.y })) ?? []}
                dataKey="value"
                nameKey="name"
                outerRadius="80%"
                label
              >
                {(chart.series[0]?.points ?? []).map((p, i) => (
                  <Cell key={`${String(p.x)}-${i}`} fill={palette[i % palette.length]} />
                ))}
              </Pie>
              <Tooltip />
              <Legend />
            </PieChart>
          ) : chart.type === "line" ? (
            <LineChart data={data}>
              {axes}
              {chart.series.map((s, i) => (
                <Line
                  key={i}
                  type="monotone"
                  dataKey={`s${i}`}
                  name={s.name}
                  stroke={palette[i % palette.length]}
                  dot={false}
                />
              ))}
            </LineChart>
          ) : chart.type === "area" ? (
            <AreaChart data={data}>
              {axes}
              {chart.series.map((s, i) => (
                <Area
                  key={i}
                  type="monotone"
                  dataKey={`s${i}`}
                  name={s.name}
                  stroke={palette[i % palette.length]}
                  fill={palette[i % palette.length]}
                  fillOpacity={0.2}
                />
              ))}
            </AreaChart>
          ) : (
            <BarChart data={data}>
              {axes}
              {chart.series.map((s, i) => (
                <Bar key={i} dataKey={`s${i}`} name={s.name} fill={palette[i % palette.length]} />
              ))}
            </BarChart>
          )}
        </ResponsiveContainer>
      </div>
    </Card>
  );
}
