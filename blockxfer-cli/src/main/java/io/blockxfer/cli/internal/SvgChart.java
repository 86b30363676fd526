package io.blockxfer.cli.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A hand-written SVG line chart of GB/s against block size (log scale), one solid line per
 * backend, operation and batch size, with the memcpy ceiling measured beside it as a dashed line of
 * the same colour.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class SvgChart {

    private static final int WIDTH = 860;
    private static final int HEIGHT = 480;
    private static final int LEFT = 70;
    private static final int RIGHT = 250;
    private static final int TOP = 40;
    private static final int BOTTOM = 60;
    private static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
        "#e377c2", "#17becf"};

    private SvgChart() {
    }

    /** The chart of {@code rows} as an SVG document. */
    public static String render(List<BenchRow> rows) {
        Map<String, List<BenchRow>> series = new TreeMap<>();
        boolean polls = rows.stream().map(BenchRow::poll).distinct().count() > 1;
        boolean hogs = rows.stream().map(BenchRow::hog).distinct().count() > 1;
        for (BenchRow r : rows) {
            String key = r.backend() + " " + r.op() + " x" + r.batchBlocks()
                    + (r.processes() == 2 ? " (" + r.placement() + ")" : "") + (polls ? " " + r.poll() + " poll" : "")
                    + (hogs && r.hog() ? " hogged" : "") + (r.notifies() ? " notified" : "");
            series.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
        }
        series.values().forEach(list -> list.sort((a, b) -> Long.compare(a.blockBytes(), b.blockBytes())));
        double minX = rows.stream().mapToDouble(r -> log2(r.blockBytes())).min().orElse(0);
        double maxX = rows.stream().mapToDouble(r -> log2(r.blockBytes())).max().orElse(1);
        if (maxX - minX < 1) {
            minX -= 0.5;
            maxX += 0.5;
        }
        double maxY = rows.stream().mapToDouble(r -> Math.max(r.gbPerSec(), r.memcpyGbPerSec())).max().orElse(1);
        double step = niceStep(maxY / 5);
        double top = Math.max(step, Math.ceil(maxY / step) * step);

        Plot plot = new Plot(minX, maxX, top);
        StringBuilder svg = new StringBuilder();
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH).append("\" height=\"")
                .append(HEIGHT).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(HEIGHT)
                .append("\" font-family=\"sans-serif\" font-size=\"12\">\n");
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        svg.append(text(LEFT, 24, "blockxfer bench: GB/s by block size (dashed: memcpy of the same blocks)", "start",
                "font-size=\"15\""));
        for (double y = 0; y <= top + step / 2; y += step) {
            double py = plot.y(y);
            svg.append(line(LEFT, py, WIDTH - RIGHT, py, "#dddddd", ""));
            svg.append(text(LEFT - 8, py + 4, trim(y), "end", ""));
        }
        rows.stream().mapToLong(BenchRow::blockBytes).distinct().forEach(b -> {
            double px = plot.x(log2(b));
            svg.append(line(px, TOP, px, HEIGHT - BOTTOM, "#eeeeee", ""));
            svg.append(text(px, HEIGHT - BOTTOM + 18, ByteSizes.compact(b), "middle", ""));
        });
        svg.append(line(LEFT, HEIGHT - BOTTOM, WIDTH - RIGHT, HEIGHT - BOTTOM, "#333333", ""));
        svg.append(line(LEFT, TOP, LEFT, HEIGHT - BOTTOM, "#333333", ""));
        svg.append(text((LEFT + WIDTH - RIGHT) / 2.0, HEIGHT - 18, "block size (bytes, log scale)", "middle", ""));
        svg.append(text(18, (TOP + HEIGHT - BOTTOM) / 2.0, "GB/s", "middle",
                "transform=\"rotate(-90 18 " + (TOP + HEIGHT - BOTTOM) / 2 + ")\""));

        int i = 0;
        for (Map.Entry<String, List<BenchRow>> e : series.entrySet()) {
            String colour = COLOURS[i % COLOURS.length];
            List<BenchRow> points = e.getValue();
            svg.append(polyline(plot, points, true, colour, "stroke-dasharray=\"6 4\" stroke-opacity=\"0.6\""));
            svg.append(polyline(plot, points, false, colour, ""));
            for (BenchRow r : points) {
                svg.append(String.format(Locale.ROOT,
                        "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>%s %s: %.2f GB/s (memcpy %.2f)"
                                + "</title></circle>%n",
                        plot.x(log2(r.blockBytes())), plot.y(r.gbPerSec()), colour, escape(e.getKey()),
                        ByteSizes.format(r.blockBytes()), r.gbPerSec(), r.memcpyGbPerSec()));
            }
            double ly = TOP + 10 + i * 20;
            svg.append(line(WIDTH - RIGHT + 20, ly, WIDTH - RIGHT + 44, ly, colour, "stroke-width=\"2\""));
            svg.append(text(WIDTH - RIGHT + 50, ly + 4, e.getKey(), "start", ""));
            i++;
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    private record Plot(double minX, double maxX, double maxY) {
        double x(double v) {
            return LEFT + 20 + (v - minX) / (maxX - minX) * (WIDTH - LEFT - RIGHT - 40);
        }

        double y(double v) {
            return HEIGHT - BOTTOM - v / maxY * (HEIGHT - TOP - BOTTOM);
        }
    }

    private static String polyline(Plot plot, List<BenchRow> points, boolean memcpy, String colour, String extra) {
        StringBuilder sb = new StringBuilder("<polyline fill=\"none\" stroke=\"").append(colour)
                .append("\" stroke-width=\"2\" ").append(extra).append(" points=\"");
        for (BenchRow r : points) {
            sb.append(String.format(Locale.ROOT, "%.1f,%.1f ", plot.x(log2(r.blockBytes())),
                    plot.y(memcpy ? r.memcpyGbPerSec() : r.gbPerSec())));
        }
        return sb.append("\"/>\n").toString();
    }

    private static String line(double x1, double y1, double x2, double y2, String colour, String extra) {
        return String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" %s/>%n",
                x1, y1, x2, y2, colour, extra);
    }

    private static String text(double x, double y, String s, String anchor, String extra) {
        return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" %s>%s</text>%n",
                x, y, anchor, extra, escape(s));
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    private static double log2(long v) {
        return Math.log((double) v) / Math.log(2);
    }

    private static double niceStep(double raw) {
        double magnitude = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-9))));
        double f = raw / magnitude;
        return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * magnitude;
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.2g", v);
    }
}
