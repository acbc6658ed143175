package report

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// A tiny SVG plotter for the HTML report: line, step and scatter series on
// a time axis, and histograms. The output is plain SVG markup with all text
// escaped, so it can be inlined in the report as template.HTML.

const (
	plotW, plotH                       = 860, 270
	marginL, marginR, marginT, marginB = 70, 30, 44, 40
	maxPlotPoints                      = 2000
)

// plotSeries is one series of a chart. NaN values break a line.
type plotSeries struct {
	Name    string
	Color   string
	X, Y    []float64 // X in Unix seconds
	Step    bool      // hold each value until the next point
	Scatter bool      // points, no line
	Dashed  bool
}

// chart is a time-series plot.
type chart struct {
	Title  string
	YLabel string
	Series []plotSeries
}

type svgBuf struct{ strings.Builder }

func (b *svgBuf) f(v float64) { b.WriteString(strconv.FormatFloat(v, 'f', 1, 64)) }

func (b *svgBuf) text(x, y float64, anchor, class, s string) {
	b.WriteString(`<text x="`)
	b.f(x)
	b.WriteString(`" y="`)
	b.f(y)
	b.WriteString(`" text-anchor="` + anchor + `" class="` + class + `">`)
	b.WriteString(template.HTMLEscapeString(s))
	b.WriteString("</text>")
}

// vtext writes text rotated to run bottom to top, centred on (x, y).
func (b *svgBuf) vtext(x, y float64, class, s string) {
	b.WriteString(`<text transform="rotate(-90 `)
	b.f(x)
	b.WriteString(" ")
	b.f(y)
	b.WriteString(`)" x="`)
	b.f(x)
	b.WriteString(`" y="`)
	b.f(y)
	b.WriteString(`" text-anchor="middle" class="` + class + `">`)
	b.WriteString(template.HTMLEscapeString(s))
	b.WriteString("</text>")
}

func (b *svgBuf) line(x1, y1, x2, y2 float64, class string) {
	b.WriteString(`<line x1="`)
	b.f(x1)
	b.WriteString(`" y1="`)
	b.f(y1)
	b.WriteString(`" x2="`)
	b.f(x2)
	b.WriteString(`" y2="`)
	b.f(y2)
	b.WriteString(`" class="` + class + `"/>`)
}

func (b *svgBuf) open(title string) {
	b.WriteString(`<svg viewBox="0 0 `)
	b.WriteString(strconv.Itoa(plotW) + " " + strconv.Itoa(plotH))
	b.WriteString(`" width="` + strconv.Itoa(plotW) + `" height="` + strconv.Itoa(plotH) + `" role="img">`)
	b.WriteString("<title>" + template.HTMLEscapeString(title) + "</title>")
	b.text(marginL, 18, "start", "title", title)
}

// niceTicks returns about n round tick values covering [lo, hi].
func niceTicks(lo, hi float64, n int) []float64 {
	if !(hi > lo) {
		return []float64{lo}
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		out = append(out, math.Round(v/step)*step)
		if len(out) > 50 {
			break
		}
	}
	return out
}

func fmtTick(v float64) string {
	if v == 0 {
		return "0"
	}
	a := math.Abs(v)
	switch {
	case a >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', -1, 64)
	default:
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
}

// thin keeps at most maxPlotPoints of a series (every k-th point and the
// last), so a long run still makes a small page.
func thin(x, y []float64) ([]float64, []float64) {
	if len(x) <= maxPlotPoints {
		return x, y
	}
	k := (len(x) + maxPlotPoints - 1) / maxPlotPoints
	var ox, oy []float64
	for i := 0; i < len(x); i += k {
		ox, oy = append(ox, x[i]), append(oy, y[i])
	}
	if last := len(x) - 1; last%k != 0 {
		ox, oy = append(ox, x[last]), append(oy, y[last])
	}
	return ox, oy
}

// render draws the chart as SVG.
func (c chart) render() template.HTML {
	var b svgBuf
	b.open(c.Title)
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for i := range s.X {
			if math.IsNaN(s.Y[i]) || math.IsInf(s.Y[i], 0) {
				continue
			}
			xmin, xmax = math.Min(xmin, s.X[i]), math.Max(xmax, s.X[i])
			ymin, ymax = math.Min(ymin, s.Y[i]), math.Max(ymax, s.Y[i])
		}
	}
	if math.IsInf(xmin, 1) {
		b.text(plotW/2, plotH/2, "middle", "note", "no data")
		b.WriteString("</svg>")
		return template.HTML(b.String()) // built from escaped parts
	}
	if xmax == xmin {
		xmin, xmax = xmin-30, xmax+30
	}
	if ymax == ymin {
		ymin, ymax = ymin-1, ymax+1
	} else {
		pad := (ymax - ymin) * 0.05
		ymin, ymax = ymin-pad, ymax+pad
	}
	x0, x1 := float64(marginL), float64(plotW-marginR)
	y0, y1 := float64(plotH-marginB), float64(marginT)
	px := func(v float64) float64 { return x0 + (v-xmin)/(xmax-xmin)*(x1-x0) }
	py := func(v float64) float64 { return y0 + (v-ymin)/(ymax-ymin)*(y1-y0) }
	// axes, grid and labels
	for _, t := range niceTicks(ymin, ymax, 5) {
		b.line(x0, py(t), x1, py(t), "grid")
		b.text(x0-6, py(t)+4, "end", "tick", fmtTick(t))
	}
	ticks := timeTicks(xmin, xmax)
	for i, l := range timeLabels(ticks) {
		b.line(px(ticks[i]), y0, px(ticks[i]), y0+4, "axis")
		b.text(px(ticks[i]), y0+18, "middle", "tick", l)
	}
	b.line(x0, y0, x1, y0, "axis")
	b.line(x0, y0, x0, y1, "axis")
	b.vtext(16, (y0+y1)/2, "label", c.YLabel)
	// series
	lx := x0
	for _, s := range c.Series {
		xs, ys := thin(s.X, s.Y)
		if s.Scatter {
			for i := range xs {
				if math.IsNaN(ys[i]) {
					continue
				}
				b.WriteString(`<circle cx="`)
				b.f(px(xs[i]))
				b.WriteString(`" cy="`)
				b.f(py(ys[i]))
				b.WriteString(`" r="2.5" fill="` + s.Color + `"/>`)
			}
		} else {
			b.WriteString(`<path fill="none" stroke="` + s.Color + `" stroke-width="1.3"`)
			if s.Dashed {
				b.WriteString(` stroke-dasharray="4 3"`)
			}
			b.WriteString(` d="`)
			pen := false
			for i := range xs {
				if math.IsNaN(ys[i]) {
					pen = false
					continue
				}
				if !pen {
					b.WriteString("M")
				} else if s.Step {
					b.WriteString("H")
					b.f(px(xs[i]))
					b.WriteString("V")
					b.f(py(ys[i]))
					continue
				} else {
					b.WriteString("L")
				}
				b.f(px(xs[i]))
				b.WriteString(",")
				b.f(py(ys[i]))
				pen = true
			}
			b.WriteString(`"/>`)
		}
		// legend, on the line below the title
		b.WriteString(`<rect x="`)
		b.f(lx)
		b.WriteString(`" y="26" width="10" height="10" fill="` + s.Color + `"/>`)
		b.text(lx+14, 35, "start", "legend", s.Name)
		lx += 14 + 6.5*float64(len(s.Name)) + 16
	}
	b.WriteString("</svg>")
	return template.HTML(b.String()) // built from escaped parts
}

// histogram draws the distribution of values in bins chosen from the data
// (histBins); values outside the range shown are counted in the end bars,
// and the title says how many.
func histogram(title, xlabel string, values []float64) template.HTML {
	hb := histBins(values)
	if hb.clipped > 0 {
		title += fmt.Sprintf("; %d outside the 1st–99th percentile, in the end bars", hb.clipped)
	}
	var b svgBuf
	b.open(title)
	if len(hb.counts) == 0 {
		b.text(plotW/2, plotH/2, "middle", "note", "no fills")
		b.WriteString("</svg>")
		return template.HTML(b.String()) // built from escaped parts
	}
	lo, hi, counts := hb.lo, hb.hi, hb.counts
	width := (hi - lo) / float64(len(counts))
	maxc := 0
	for _, c := range counts {
		maxc = max(maxc, c)
	}
	x0, x1 := float64(marginL), float64(plotW-marginR)
	y0, y1 := float64(plotH-marginB), float64(marginT)
	px := func(v float64) float64 { return x0 + (v-lo)/(hi-lo)*(x1-x0) }
	py := func(c float64) float64 { return y0 + c/float64(maxc)*(y1-y0) }
	for _, t := range niceTicks(0, float64(maxc), 4) {
		if t != math.Floor(t) {
			continue // counts are whole
		}
		b.line(x0, py(t), x1, py(t), "grid")
		b.text(x0-6, py(t)+4, "end", "tick", fmtTick(t))
	}
	for i, c := range counts {
		if c == 0 {
			continue
		}
		left := px(lo + float64(i)*width)
		right := px(lo + float64(i+1)*width)
		b.WriteString(`<rect class="bar" x="`)
		b.f(left + 0.5)
		b.WriteString(`" y="`)
		b.f(py(float64(c)))
		b.WriteString(`" width="`)
		b.f(math.Max(right-left-1, 0.5))
		b.WriteString(`" height="`)
		b.f(y0 - py(float64(c)))
		b.WriteString(`"/>`)
	}
	for _, t := range niceTicks(lo, hi, 6) {
		b.line(px(t), y0, px(t), y0+4, "axis")
		b.text(px(t), y0+18, "middle", "tick", fmtTick(t))
	}
	if lo < 0 && hi > 0 {
		b.line(px(0), y0, px(0), y1, "zero")
	}
	b.line(x0, y0, x1, y0, "axis")
	b.line(x0, y0, x0, y1, "axis")
	b.text((x0+x1)/2, plotH-4, "middle", "label", xlabel)
	b.vtext(16, (y0+y1)/2, "label", "fills")
	b.WriteString("</svg>")
	return template.HTML(b.String()) // built from escaped parts
}
