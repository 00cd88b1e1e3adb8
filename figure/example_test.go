package figure

import (
	"bytes"
	"fmt"
	"image/png"
	"strings"
)

func ExampleTrace() {
	chains := [][]float64{{0.1, 0.3, 0.2, 0.4}, {0.2, 0.25, 0.35, 0.3}}
	f, err := Trace("C[1, 2]", chains, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(f.PNG))
	fmt.Println(cfg.Width, cfg.Height, err)
	fmt.Println(f.Text)
	fmt.Println(strings.HasPrefix(string(f.SVG), "<?xml"))
	// Output:
	// 640 400 <nil>
	// Trace plot of "C[1, 2]": 2 chains × 4 draws (first 2 warmup), values in [0.1, 0.4]
	// true
}
