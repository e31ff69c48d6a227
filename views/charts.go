package views

import (
	"strconv"
)

// Chart geometry, in SVG user units. The SVGs are not scaled to their box
// (a 640-unit chart in a 340 px column drew 6 px labels): heights are
// pixels, and horizontal positions are drawn as percentages of the plot's
// width (pct), so text keeps its CSS size at every width.
const (
	chartW    = 640.0
	colH      = 180.0
	colTop    = 10.0
	colBottom = 22.0
	colLeft   = 34.0
	hbarRowH  = 30.0
	hbarBarH  = 9.0
	// hbarValueW is what a ranking keeps right of its longest bar for
	// the value.
	hbarValueW = 80.0
)

// Point is one value of a series: a day, a tool, a file. Sub is a part of
// Value drawn over it (the failures among the tool calls).
type Point struct {
	Label string
	Value int64
	Sub   int64
}

// Column is one bar of a column chart, laid out.
type Column struct {
	Point
	X, W, Y, H, SubY, SubH float64
	ShowLabel              bool
}

// GridLine is a horizontal guide with its value.
type GridLine struct {
	Y     float64
	Label string
}

// ColumnChart is a laid-out column chart (one column per day).
type ColumnChart struct {
	Width, Height float64
	Columns       []Column
	Grid          []GridLine
	// Fail draws the main bars in the failure colour.
	Fail  bool
	Empty bool
	// Desc is a text description for screen readers.
	Desc string
}

// NewColumnChart lays out points as columns; at most about 8 x labels.
func NewColumnChart(points []Point, fail bool, desc string) ColumnChart {
	c := ColumnChart{Width: chartW, Height: colH, Fail: fail, Desc: desc, Empty: true}
	max := int64(0)
	for _, p := range points {
		if p.Value > max {
			max = p.Value
		}
		if p.Value > 0 {
			c.Empty = false
		}
	}
	top := niceCeil(max)
	plotH := colH - colTop - colBottom
	plotW := chartW - colLeft
	for _, v := range []int64{0, top / 2, top} {
		if v == top/2 && top%2 != 0 {
			continue
		}
		c.Grid = append(c.Grid, GridLine{Y: colTop + plotH - float64(v)/float64(top)*plotH, Label: strconv.FormatInt(v, 10)})
	}
	n := len(points)
	if n == 0 {
		return c
	}
	step := plotW / float64(n)
	every := (n + 7) / 8
	for i, p := range points {
		h := float64(p.Value) / float64(top) * plotH
		sh := float64(p.Sub) / float64(top) * plotH
		col := Column{
			Point: p, W: step * 0.68, X: colLeft + float64(i)*step + step*0.16,
			Y: colTop + plotH - h, H: h, SubY: colTop + plotH - sh, SubH: sh,
			ShowLabel: (n-1-i)%every == 0,
		}
		c.Columns = append(c.Columns, col)
	}
	return c
}

// niceCeil rounds up to 1, 2 or 5 times a power of ten (at least 1).
func niceCeil(v int64) int64 {
	if v <= 1 {
		return 1
	}
	p := int64(1)
	for {
		for _, m := range []int64{1, 2, 5} {
			if m*p >= v {
				return m * p
			}
		}
		p *= 10
	}
}

// HBar is one row of a horizontal bar chart, laid out.
type HBar struct {
	Point
	Y, W, SubW float64
}

// HBarChart is a laid-out ranking (tools, files, projects): a label above
// each bar and the value at its end.
type HBarChart struct {
	Width, Height float64
	Bars          []HBar
	Desc          string
}

// NewHBarChart lays out a ranking, largest first as given.
func NewHBarChart(points []Point, desc string) HBarChart {
	c := HBarChart{Width: chartW, Height: float64(len(points))*hbarRowH + 4, Desc: desc}
	max := int64(1)
	for _, p := range points {
		if p.Value > max {
			max = p.Value
		}
	}
	plotW := chartW - hbarValueW
	for i, p := range points {
		w := float64(p.Value) / float64(max) * plotW
		if p.Value > 0 && w < 2 {
			w = 2
		}
		c.Bars = append(c.Bars, HBar{
			Point: p, Y: float64(i) * hbarRowH,
			W: w, SubW: float64(p.Sub) / float64(max) * plotW,
		})
	}
	return c
}

// colPct is a column chart's x as a percentage of its plot (the SVG's box
// right of its colLeft padding, where the value axis is drawn).
func colPct(x float64) string { return pct((x - colLeft) / (chartW - colLeft)) }

// colW is a column's width as a percentage of its chart's plot.
func colW(w float64) string { return pct(w / (chartW - colLeft)) }

// barPct is a ranking's x as a percentage of its width.
func barPct(x float64) string { return pct(x / chartW) }

func pct(f float64) string { return strconv.FormatFloat(f*100, 'f', 2, 64) + "%" }

// svgNum formats a coordinate compactly.
func svgNum(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// shortDay turns YYYY-MM-DD into MM-DD for axis labels.
func shortDay(d string) string {
	if len(d) == 10 {
		return d[5:]
	}
	return d
}

// usd formats a cost estimate in dollars.
func usd(v float64) string { return "$" + strconv.FormatFloat(v, 'f', 2, 64) }
