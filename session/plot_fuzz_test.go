package session

import (
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
)

// fuzzFloats decodes data as little-endian float64s (any bit pattern:
// NaN, ±Inf, subnormals, huge values).
func fuzzFloats(data []byte) []float64 {
	out := make([]float64, len(data)/8)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
	}
	return out
}

func fuzzSeed(vs ...float64) []byte {
	b := make([]byte, 8*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	return b
}

// FuzzPlots feeds arbitrary numbers to every plot: well-shaped input must
// render (a panic inside gonum/plot would come back as an error) and every
// figure must carry PNG, SVG and text.
func FuzzPlots(f *testing.F) {
	f.Add(uint8(2), "C[1, 2]", fuzzSeed(0.1, 0.2, 0.3, 0.4))
	f.Add(uint8(1), "a<b & \"c\"", fuzzSeed(math.NaN(), math.Inf(1), math.Inf(-1), 0, -0.0, 5e-324))
	f.Add(uint8(3), "\x00\xff\n", fuzzSeed(1e308, -1e308, 1e-300, 1, 1, 1, 2, 2, 2))
	f.Add(uint8(1), "", fuzzSeed(7))
	f.Fuzz(func(t *testing.T, m uint8, title string, data []byte) {
		vs := fuzzFloats(data)
		chainsN := int(m%4) + 1
		n := len(vs) / chainsN
		if n == 0 || len(vs) > 512 {
			return
		}
		chains := make([][]float64, chainsN)
		for c := range chains {
			chains[c] = vs[c*n : (c+1)*n]
		}
		p := int(math.Sqrt(float64(len(vs))))
		labels := make([]string, min(p, 30))
		for i := range labels {
			labels[i] = title
		}
		k := min(chainsN, pairsMax)
		half := len(vs) / 2
		checks := []struct {
			name string
			make func() (*Figure, error)
		}{
			{"trace", func() (*Figure, error) { return TracePlot(title, chains, int(m)) }},
			{"hist", func() (*Figure, error) { return HistPlot(title, chains, vs[0]) }},
			{"acf", func() (*Figure, error) { return ACFPlot(title, chains, int(m)) }},
			{"heatmap", func() (*Figure, error) { return HeatmapPlot(title, labels, vs[:len(labels)*len(labels)]) }},
			{"rmse", func() (*Figure, error) {
				return RMSEPlot(title, map[string][]float64{title: chains[0], "b": vs}, int(m))
			}},
			{"pairs", func() (*Figure, error) {
				return PairsPlot(title, labels[:min(k, len(labels))], chains[:min(k, len(labels))])
			}},
			{"levels", func() (*Figure, error) { return LevelsPlot(title, vs, []string{"x"}) }},
			{"bars", func() (*Figure, error) { return BarsPlot(title, "", "", make([]string, len(vs)), vs) }},
			{"latent", func() (*Figure, error) {
				if half == 0 {
					return LatentPlot(title, vs, vs)
				}
				return LatentPlot(title, vs[:half], vs[half:2*half])
			}},
		}
		for _, c := range checks {
			fig, err := c.make()
			if err != nil {
				if (c.name == "heatmap" || c.name == "pairs") && len(labels) == 0 {
					continue
				}
				t.Fatalf("%s: %v", c.name, err)
			}
			if len(fig.PNG) == 0 || strings.TrimSpace(fig.Text) == "" {
				t.Fatalf("%s: empty figure", c.name)
			}
			dec := xml.NewDecoder(bytes.NewReader(fig.SVG))
			for {
				_, err := dec.Token()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("%s: SVG is not well-formed XML: %v", c.name, err)
				}
			}
		}
	})
}

// FuzzTableText checks that any cells give one text line per row after
// the header and one HTML cell per table cell.
func FuzzTableText(f *testing.F) {
	f.Add("param mean", "a 1\nb <2>&\n")
	f.Add("", "\n\n")
	f.Add("μ σ", "ξ  ψ  ω\n")
	f.Fuzz(func(t *testing.T, header, body string) {
		if strings.ContainsAny(header+body, "\r") {
			return
		}
		tab := &Table{Header: strings.Fields(header)}
		for _, line := range strings.Split(body, "\n") {
			tab.Rows = append(tab.Rows, strings.Fields(line))
		}
		cols := tab.tableColumns()
		text := tab.Text()
		if cols == 0 {
			if text != "" {
				t.Fatalf("no columns but text %q", text)
			}
			return
		}
		want := len(tab.Rows)
		if len(tab.Header) > 0 {
			want++
		}
		if got := strings.Count(text, "\n"); got != want {
			t.Fatalf("%d lines, want %d: %q", got, want, text)
		}
		h := tab.HTML()
		if got := strings.Count(h, "<td>") + strings.Count(h, "<th>"); got != cols*want {
			t.Fatalf("%d cells in HTML, want %d", got, cols*want)
		}
	})
}
