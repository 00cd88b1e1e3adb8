package kernel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Kernelspec is the kernel.json Jupyter reads to start a kernel.
type Kernelspec struct {
	Argv          []string          `json:"argv"`
	DisplayName   string            `json:"display_name"`
	Language      string            `json:"language"`
	InterruptMode string            `json:"interrupt_mode"`
	Env           map[string]string `json:"env,omitempty"`
	Metadata      map[string]any    `json:"metadata,omitempty"`
}

// SpecName is the kernelspec's directory name (jupyter kernelspec list).
const SpecName = "copulang"

// NewKernelspec returns the kernelspec that starts exe as a copulang kernel.
func NewKernelspec(exe string) Kernelspec {
	return Kernelspec{
		Argv:          []string{exe, "kernel", "-f", "{connection_file}"},
		DisplayName:   "Copulang",
		Language:      "copulang",
		InterruptMode: "message",
	}
}

// Install writes kernel.json, kernel.js (the CodeMirror mode of hl, for
// classic Notebook), logo-32x32.png and logo-64x64.png to
// dataDir/kernels/copulang, where dataDir is a Jupyter data directory (see
// UserDataDir, SysPrefixDataDir, PrefixDataDir) and exe the absolute path of
// the copulang binary. It returns the kernelspec directory.
func Install(dataDir, exe string, hl Highlighting) (string, error) {
	if !filepath.IsAbs(exe) {
		return "", fmt.Errorf("kernel: install: executable path %q is not absolute", exe)
	}
	dir := filepath.Join(dataDir, "kernels", SpecName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("kernel: install: %w", err)
	}
	spec, err := json.MarshalIndent(NewKernelspec(exe), "", "  ")
	if err != nil {
		return "", fmt.Errorf("kernel: install: %w", err)
	}
	js, err := hl.KernelJS()
	if err != nil {
		return "", err
	}
	files := map[string][]byte{"kernel.json": append(spec, '\n'), "kernel.js": js}
	for _, size := range []int{32, 64} {
		b, err := LogoPNG(size)
		if err != nil {
			return "", fmt.Errorf("kernel: install: logo: %w", err)
		}
		files[fmt.Sprintf("logo-%dx%d.png", size, size)] = b
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return "", fmt.Errorf("kernel: install: %w", err)
		}
	}
	return dir, nil
}

// UserDataDir returns the per-user Jupyter data directory as jupyter_core
// finds it: $JUPYTER_DATA_DIR, else on Linux $XDG_DATA_HOME/jupyter or
// ~/.local/share/jupyter, on macOS ~/Library/Jupyter, on Windows
// %APPDATA%\jupyter.
func UserDataDir() (string, error) {
	if d := os.Getenv("JUPYTER_DATA_DIR"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("kernel: no home directory for --user: %w", err)
	}
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Jupyter"), nil
	case "windows":
		if a := os.Getenv("APPDATA"); a != "" {
			return filepath.Join(a, "jupyter"), nil
		}
		return filepath.Join(home, "AppData", "Roaming", "jupyter"), nil
	}
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "jupyter"), nil
	}
	return filepath.Join(home, ".local", "share", "jupyter"), nil
}

// SysPrefixDataDir returns sys.prefix/share/jupyter of the given Python
// interpreter, or /usr/local/share/jupyter if it cannot be run.
func SysPrefixDataDir(python string) string {
	out, err := exec.Command(python, "-c", "import sys; print(sys.prefix)").Output()
	prefix := strings.TrimSpace(string(out))
	if err != nil || prefix == "" {
		prefix = "/usr/local"
	}
	return PrefixDataDir(prefix)
}

// PrefixDataDir returns prefix/share/jupyter.
func PrefixDataDir(prefix string) string {
	return filepath.Join(prefix, "share", "jupyter")
}

// LogoPNG draws the copulang logo at size×size pixels: nested contours of a
// correlated bivariate normal density, warm on dark blue, in a rounded
// square.
func LogoPNG(size int) ([]byte, error) {
	if size < 8 {
		return nil, errors.New("logo too small")
	}
	const (
		rho = 0.7
		ss  = 4 // supersampling per axis
	)
	bands := []struct {
		q float64
		c color.NRGBA
	}{
		{0.35, color.NRGBA{0xff, 0xd1, 0x66, 0xff}},
		{1.2, color.NRGBA{0xf4, 0xa2, 0x61, 0xff}},
		{2.6, color.NRGBA{0xe7, 0x6f, 0x51, 0xff}},
	}
	bg := color.NRGBA{0x1b, 0x2a, 0x49, 0xff}
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	radius := 0.22 // corner radius, fraction of the side
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			var r, g, b, a float64
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					u := (float64(px) + (float64(sx)+0.5)/ss) / float64(size) // [0,1]
					v := (float64(py) + (float64(sy)+0.5)/ss) / float64(size)
					if !insideRoundedSquare(u, v, radius) {
						continue
					}
					x, y := (u-0.5)*5.2, (0.5-v)*5.2 // standard-normal units, y up
					q := (x*x - 2*rho*x*y + y*y) / (1 - rho*rho)
					c := bg
					for _, band := range bands {
						if q < band.q {
							c = band.c
							break
						}
					}
					r += float64(c.R)
					g += float64(c.G)
					b += float64(c.B)
					a++
				}
			}
			if a == 0 {
				continue
			}
			img.SetNRGBA(px, py, color.NRGBA{
				R: uint8(r/a + 0.5), G: uint8(g/a + 0.5), B: uint8(b/a + 0.5),
				A: uint8(255*a/(ss*ss) + 0.5),
			})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// insideRoundedSquare reports whether (u, v) in the unit square lies inside
// it with corners rounded to radius.
func insideRoundedSquare(u, v, radius float64) bool {
	cx := min(max(u, radius), 1-radius)
	cy := min(max(v, radius), 1-radius)
	dx, dy := u-cx, v-cy
	return dx*dx+dy*dy <= radius*radius
}
