package figure

// This file draws a figure once more as a PDF (vgpdf), for a paper: the
// same drawing as the PNG and SVG, with its fonts embedded, and the same
// bytes every time it is drawn.

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"regexp"
	"strings"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgpdf"
)

// PDF draws the figure as a PDF of the PNG's size (at 96 dpi: 640×400
// pixels is 480×300 points), its text in the embedded Liberation Sans.
// The PDF's creation and modification dates are fixed (see pdfDates), so
// that the same figure gives the same bytes. A character the PDF's font
// encoding (Windows-1252, the one vgpdf writes) lacks is written as the
// nearest ASCII (− as -, ≥ as >=, ρ as rho; see pdfText).
func (f *Figure) PDF() (out []byte, err error) {
	if f.paint == nil {
		return nil, errors.New("figure: this figure cannot be drawn again as a PDF")
	}
	defer func() {
		// vgpdf panics when a font or image cannot be encoded.
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("drawing %s as a PDF: %v", f.Text, r)
		}
	}()
	c := vgpdf.New(pixels(f.Width), pixels(f.Height))
	f.paint(draw.New(pdfText{c}))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("encoding PDF of %s: %w", f.Text, err)
	}
	return pdfDates(buf.Bytes()), nil
}

// pdfDate matches the dates fpdf writes into a PDF's information
// dictionary: the time it was written, to the second.
var pdfDate = regexp.MustCompile(`/(CreationDate|ModDate) \(D:\d{14}\)`)

// pdfDates replaces the creation and modification dates of a PDF by
// fpdf with 2000-01-01 00:00:00, the same number of bytes, so that the
// cross-reference table's offsets stay right: the same figure drawn again
// gives the same file, as a script run again writes the same CSV. (fpdf
// would take a fixed date only as a package-wide default.)
func pdfDates(pdf []byte) []byte {
	return pdfDate.ReplaceAll(pdf, []byte(`/$1 (D:20000101000000)`))
}

// pdfText is a canvas that writes its text in the PDF font's encoding,
// Windows-1252 (vgpdf hands the UTF-8 bytes on as they are, which show as
// â€™ and the like): a character of Windows-1252 as its byte, and any
// other as the nearest ASCII. It draws images (a large heatmap's cells,
// the colour bar) as filled rectangles (see DrawImage).
type pdfText struct{ vg.CanvasSizer }

// maxPDFRectangles bounds the rectangles an image is drawn as in a PDF;
// an image that would need more is embedded as an image.
const maxPDFRectangles = 250_000

// pdfOverlap is how far a rectangle of an image drawn as rectangles
// reaches under its neighbours to the right and below, which are drawn
// after it: abutting fills show hairline seams in PDF viewers that
// antialias their edges.
const pdfOverlap = vg.Length(0.25)

// DrawImage implements vg.Canvas: the image as rectangles of one colour,
// each a run of equal pixels in a row, over the rows that repeat it. A
// PDF viewer smooths an image scaled up (a heatmap of 60 columns, drawn
// as 60×60 pixels, comes out blurred), and fpdf writes a PDF's images in
// the order of a Go map, so that two drawings of one figure differed.
func (c pdfText) DrawImage(rect vg.Rectangle, img image.Image) {
	b := img.Bounds()
	cells := imageRectangles(img)
	if len(cells) > maxPDFRectangles || b.Dx() == 0 || b.Dy() == 0 {
		c.CanvasSizer.DrawImage(rect, img)
		return
	}
	sx := (rect.Max.X - rect.Min.X) / vg.Length(b.Dx())
	sy := (rect.Max.Y - rect.Min.Y) / vg.Length(b.Dy())
	c.Push()
	defer c.Pop()
	for _, r := range cells {
		// Image rows run top down.
		x0, x1 := rect.Min.X+sx*vg.Length(r.x0), rect.Min.X+sx*vg.Length(r.x1)
		y0, y1 := rect.Max.Y-sy*vg.Length(r.y1), rect.Max.Y-sy*vg.Length(r.y0)
		if r.x1 < b.Dx() {
			x1 += pdfOverlap
		}
		if r.y1 < b.Dy() {
			y0 -= pdfOverlap
		}
		var p vg.Path
		p.Move(vg.Point{X: x0, Y: y0})
		p.Line(vg.Point{X: x1, Y: y0})
		p.Line(vg.Point{X: x1, Y: y1})
		p.Line(vg.Point{X: x0, Y: y1})
		p.Close()
		c.SetColor(r.color)
		c.Fill(p)
	}
}

// imageRectangle is a rectangle of pixels of one colour, [x0, x1) ×
// [y0, y1) from the image's top left corner.
type imageRectangle struct {
	x0, x1, y0, y1 int
	color          color.Color
}

// imageRectangles returns img as rectangles of one colour: the runs of
// equal pixels of each row, a run of equal rows drawn once.
func imageRectangles(img image.Image) []imageRectangle {
	b := img.Bounds()
	var out []imageRectangle
	rowStart := 0 // the index in out of the last distinct row's first run
	for y := b.Min.Y; y < b.Max.Y; y++ {
		if y > b.Min.Y && sameRow(img, y, y-1) {
			for k := rowStart; k < len(out); k++ {
				out[k].y1++
			}
			continue
		}
		rowStart = len(out)
		for x := b.Min.X; x < b.Max.X; {
			col := color.RGBA64Model.Convert(img.At(x, y))
			end := x + 1
			for end < b.Max.X && color.RGBA64Model.Convert(img.At(end, y)) == col {
				end++
			}
			out = append(out, imageRectangle{x0: x - b.Min.X, x1: end - b.Min.X, y0: y - b.Min.Y, y1: y - b.Min.Y + 1, color: col})
			x = end
		}
	}
	return out
}

// sameRow reports whether rows y and z of img hold the same pixels.
func sameRow(img image.Image, y, z int) bool {
	b := img.Bounds()
	for x := b.Min.X; x < b.Max.X; x++ {
		if color.RGBA64Model.Convert(img.At(x, y)) != color.RGBA64Model.Convert(img.At(x, z)) {
			return false
		}
	}
	return true
}

// SetColor implements vg.Canvas. vgpdf takes the red, green and blue of a
// colour's RGBA, which are premultiplied by its alpha, as the colour and
// sets the alpha as well, so that a colour of opacity a was drawn a times
// as dark, at opacity a: a pairs plot's points (35% opaque) came out
// navy, where the PNG and SVG show them light blue. straightColor hands
// it the colour's own red, green and blue.
func (c pdfText) SetColor(clr color.Color) {
	if clr != nil {
		clr = straightColor{color.NRGBA64Model.Convert(clr).(color.NRGBA64)}
	}
	c.CanvasSizer.SetColor(clr)
}

// straightColor is a colour whose RGBA returns its red, green and blue
// not premultiplied by its alpha, as vgpdf reads them (see SetColor).
// It is for vgpdf only: anything else takes RGBA as premultiplied.
type straightColor struct{ c color.NRGBA64 }

func (s straightColor) RGBA() (r, g, b, a uint32) {
	return uint32(s.c.R), uint32(s.c.G), uint32(s.c.B), uint32(s.c.A)
}

// Fill implements vg.Canvas, with arcs as Bézier curves (arcsAsCurves).
func (c pdfText) Fill(p vg.Path) { c.CanvasSizer.Fill(arcsAsCurves(p)) }

// Stroke implements vg.Canvas, with arcs as Bézier curves (arcsAsCurves).
func (c pdfText) Stroke(p vg.Path) { c.CanvasSizer.Stroke(arcsAsCurves(p)) }

// arcsAsCurves returns p with each arc written as cubic Bézier curves of
// at most a quarter turn each (a line to its start first, as an arc
// draws one from the current point). vgpdf writes an arc as fpdf's Arc,
// which paints it as a path of its own inside a q ... cm ... Q (a graphics
// state operator in the middle of the path being built, which PDF does
// not allow) and leaves the glyph's own path of one point, which
// Ghostscript painted as a speck: a pairs plot's scatter panels left a
// cloud of specks beside them.
func arcsAsCurves(p vg.Path) vg.Path {
	hasArc := false
	for _, comp := range p {
		hasArc = hasArc || comp.Type == vg.ArcComp
	}
	if !hasArc {
		return p
	}
	out := make(vg.Path, 0, len(p)+4)
	started := false
	for _, comp := range p {
		if comp.Type != vg.ArcComp {
			out = append(out, comp)
			started = started || comp.Type == vg.MoveComp
			continue
		}
		at := func(a float64) vg.Point {
			return vg.Point{X: comp.Pos.X + comp.Radius*vg.Length(math.Cos(a)), Y: comp.Pos.Y + comp.Radius*vg.Length(math.Sin(a))}
		}
		if started {
			out.Line(at(comp.Start))
		} else {
			out.Move(at(comp.Start))
			started = true
		}
		n := max(1, int(math.Ceil(math.Abs(comp.Angle)/(math.Pi/2)-1e-9)))
		step := comp.Angle / float64(n)
		k := vg.Length(4.0 / 3 * math.Tan(step/4))
		for i := range n {
			a0, a1 := comp.Start+float64(i)*step, comp.Start+float64(i+1)*step
			p0, p3 := at(a0), at(a1)
			c1 := vg.Point{X: p0.X - k*comp.Radius*vg.Length(math.Sin(a0)), Y: p0.Y + k*comp.Radius*vg.Length(math.Cos(a0))}
			c2 := vg.Point{X: p3.X + k*comp.Radius*vg.Length(math.Sin(a1)), Y: p3.Y - k*comp.Radius*vg.Length(math.Cos(a1))}
			out.CubeTo(c1, c2, p3)
		}
	}
	return out
}

// FillString implements vg.Canvas.
func (c pdfText) FillString(f font.Face, pt vg.Point, s string) {
	c.CanvasSizer.FillString(f, pt, windows1252(asciiFor.Replace(xmlText(s))))
}

// asciiFor writes the characters the figures use that Windows-1252 lacks
// as ASCII.
var asciiFor = strings.NewReplacer(
	"−", "-", "≥", ">=", "≤", "<=", "≈", "~", "→", "->", "√n", "sqrt(n)", "√", "sqrt",
	"ρ", "rho", "τ", "tau", "θ", "theta", "Λ", "Lambda", "Σ", "Sum", "ᵀ", "'",
	"⁴", "^4", "⁵", "^5", "\u0303", "",
)

// windows1252 encodes s in Windows-1252: ASCII and Latin-1 as they are,
// the typographic characters of 0x80–0x9F as their bytes, anything else as ?.
func windows1252(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 0x80 || r >= 0xA0 && r <= 0xFF:
			b.WriteByte(byte(r))
		default:
			if c, ok := cp1252High[r]; ok {
				b.WriteByte(c)
			} else {
				b.WriteByte('?')
			}
		}
	}
	return b.String()
}

// cp1252High are the characters of Windows-1252's bytes 0x80 to 0x9F.
var cp1252High = map[rune]byte{
	'€': 0x80, '‚': 0x82, 'ƒ': 0x83, '„': 0x84, '…': 0x85, '†': 0x86, '‡': 0x87,
	'ˆ': 0x88, '‰': 0x89, 'Š': 0x8A, '‹': 0x8B, 'Œ': 0x8C, 'Ž': 0x8E,
	'‘': 0x91, '’': 0x92, '“': 0x93, '”': 0x94, '•': 0x95, '–': 0x96, '—': 0x97,
	'˜': 0x98, '™': 0x99, 'š': 0x9A, '›': 0x9B, 'œ': 0x9C, 'ž': 0x9E, 'Ÿ': 0x9F,
}
