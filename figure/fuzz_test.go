package figure

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
	f.Add(uint8(1), "a<b & \"c\"", fuzzSeed(math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 5e-324))
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
		k := min(chainsN, maxPairs)
		half := len(vs) / 2
		checks := []struct {
			name string
			make func() (*Figure, error)
		}{
			{"trace", func() (*Figure, error) { return Trace(title, chains, int(m)) }},
			{"hist", func() (*Figure, error) { return Histogram(title, chains, vs[0]) }},
			{"acf", func() (*Figure, error) { return ACF(title, chains, int(m)) }},
			{"rank", func() (*Figure, error) { return Rank(title, chains, int(m)%30) }},
			{"heatmap", func() (*Figure, error) { return Heatmap(title, labels, vs[:len(labels)*len(labels)]) }},
			{"heatmap by dependence", func() (*Figure, error) {
				return HeatmapWith(title, labels, vs[:len(labels)*len(labels)], HeatmapOptions{ByDependence: true})
			}},
			{"heatmap of a difference in a given order", func() (*Figure, error) {
				// The order reversed, the scale from the first value (any
				// number: NaN, negative and infinite ones mean ±1) and the
				// cells framed where a value is positive.
				q := len(labels)
				order := make([]int, q)
				for k := range order {
					order[k] = q - 1 - k
				}
				framed := make([]bool, q*q)
				for k := range framed {
					framed[k] = vs[k] > 0
				}
				return HeatmapWith(title, labels, vs[:q*q], HeatmapOptions{Order: order, OrderedBy: title, Scale: vs[0], Framed: framed, FrameLegend: title})
			}},
			{"rmse", func() (*Figure, error) {
				return RMSE(title, map[string][]float64{title: chains[0], "b": vs}, int(m))
			}},
			{"pairs", func() (*Figure, error) {
				return Pairs(title, labels[:min(k, len(labels))], chains[:min(k, len(labels))])
			}},
			{"intervals", func() (*Figure, error) {
				q := len(vs) / 4
				if q == 0 {
					return Intervals(title, title, title, []string{title}, vs[:1], vs[:1], vs[:1], vs[:1], []bool{true})
				}
				return Intervals(title, title, title, make([]string, q), vs[:q], vs[q:2*q], vs[2*q:3*q], vs[3*q:4*q], make([]bool, q))
			}},
			{"posterior intervals", func() (*Figure, error) {
				// Each chain an item with one chain of its own.
				items, draws := make([]string, chainsN), make([][][]float64, chainsN)
				for c := range chains {
					items[c], draws[c] = title, [][]float64{chains[c]}
				}
				return PosteriorIntervals(title, title, items, draws, vs[:chainsN])
			}},
			{"graph", func() (*Figure, error) {
				// A pair of nodes from each four numbers: two pick the
				// nodes, the others are the mean and one end.
				nodes := make([]string, max(len(labels), 1))
				for i := range nodes {
					nodes[i] = title
				}
				var pairs []GraphPair
				seen := map[[2]int]bool{}
				for q := 0; q+3 < len(vs) && len(nodes) > 1; q += 4 {
					i, j := int(math.Float64bits(vs[q])%uint64(len(nodes))), int(math.Float64bits(vs[q+1])%uint64(len(nodes)))
					if i == j || seen[[2]int{min(i, j), max(i, j)}] {
						continue
					}
					seen[[2]int{min(i, j), max(i, j)}] = true
					pairs = append(pairs, GraphPair{I: i, J: j, Mean: vs[q+2], Lo: vs[q+3], Hi: vs[q+2], Truth: vs[q]})
				}
				// At most as many edges as the bytes' length says, so
				// that some graphs leave edges out.
				return GraphWith(title, title, nodes, pairs, 0.9, GraphOptions{MaxEdges: len(data) % 7})
			}},
			{"predicted", func() (*Figure, error) {
				// Levels from each five numbers: mean, interval, marginal, share.
				q := min(len(vs)/5, MaxPredictedLevels)
				if q == 0 {
					return Predicted(title, title, []string{title}, vs[:1], vs[:1], vs[:1], vs[:1], nil, title)
				}
				return Predicted(title, title, make([]string, q), vs[:q], vs[q:2*q], vs[2*q:3*q], vs[3*q:4*q], vs[4*q:5*q], title)
			}},
			{"latent", func() (*Figure, error) {
				if half == 0 {
					return Latent(title, vs, vs)
				}
				return Latent(title, vs[:half], vs[half:2*half])
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
