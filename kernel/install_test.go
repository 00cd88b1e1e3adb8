package kernel

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
)

func TestInstall(t *testing.T) {
	data := t.TempDir()
	dir, err := Install(data, "/opt/copulang/bin/copulang", testHighlighting)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(data, "kernels", "copulang"); dir != want {
		t.Errorf("dir %s, want %s", dir, want)
	}
	b, err := os.ReadFile(filepath.Join(dir, "kernel.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"argv":           []any{"/opt/copulang/bin/copulang", "kernel", "-f", "{connection_file}"},
		"display_name":   "Copulang",
		"language":       "copulang",
		"interrupt_mode": "message",
	}
	if !reflect.DeepEqual(spec, want) {
		t.Errorf("kernel.json = %v, want %v", spec, want)
	}
	if js, err := os.ReadFile(filepath.Join(dir, "kernel.js")); err != nil || !bytes.Contains(js, []byte("defineSimpleMode")) {
		t.Errorf("kernel.js: %v", err)
	}
	for _, size := range []int{32, 64} {
		f, err := os.ReadFile(filepath.Join(dir, map[int]string{32: "logo-32x32.png", 64: "logo-64x64.png"}[size]))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(f))
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != size || b.Dy() != size {
			t.Errorf("logo %d is %v", size, b)
		}
	}
	// Installing again overwrites.
	if _, err := Install(data, "/other/copulang", testHighlighting); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(data, "relative/copulang", testHighlighting); err == nil {
		t.Error("relative executable path accepted")
	}
}

func TestLogoPNG(t *testing.T) {
	b, err := LogoPNG(64)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		x, y       int
		r, g, b, a uint32 // 8-bit expectations
	}{
		{"transparent corner", 0, 0, 0, 0, 0, 0},
		{"yellow centre", 32, 32, 0xff, 0xd1, 0x66, 0xff},
		{"dark blue edge", 32, 2, 0x1b, 0x2a, 0x49, 0xff},
		{"red along the correlation axis", 48, 16, 0xe7, 0x6f, 0x51, 0xff},
		{"blue across it", 48, 48, 0x1b, 0x2a, 0x49, 0xff},
	}
	for _, tc := range tests {
		r, g, b, a := img.At(tc.x, tc.y).RGBA()
		if tc.a == 0 {
			if a != 0 {
				t.Errorf("%s: alpha %d", tc.name, a>>8)
			}
			continue
		}
		if r>>8 != tc.r || g>>8 != tc.g || b>>8 != tc.b || a>>8 != tc.a {
			t.Errorf("%s at (%d,%d): rgba %02x%02x%02x%02x, want %02x%02x%02x%02x", tc.name, tc.x, tc.y, r>>8, g>>8, b>>8, a>>8, tc.r, tc.g, tc.b, tc.a)
		}
	}
	if _, err := LogoPNG(4); err == nil {
		t.Error("4-pixel logo accepted")
	}
}

func TestUserDataDir(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("paths below are Linux's")
	}
	tests := []struct {
		name, jupyter, xdg, home, want string
	}{
		{"JUPYTER_DATA_DIR wins", "/j", "/x", "/h", "/j"},
		{"XDG_DATA_HOME", "", "/x", "/h", "/x/jupyter"},
		{"home", "", "", "/h", "/h/.local/share/jupyter"},
	}
	for _, tc := range tests {
		t.Setenv("JUPYTER_DATA_DIR", tc.jupyter)
		t.Setenv("XDG_DATA_HOME", tc.xdg)
		t.Setenv("HOME", tc.home)
		got, err := UserDataDir()
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

func TestSysPrefixDataDir(t *testing.T) {
	if got := SysPrefixDataDir("/nonexistent/python"); got != "/usr/local/share/jupyter" {
		t.Errorf("without python: %s", got)
	}
	if _, err := os.Stat(python); err == nil {
		if got := SysPrefixDataDir(python); !filepath.IsAbs(got) || filepath.Base(got) != "jupyter" {
			t.Errorf("with %s: %s", python, got)
		}
	}
}

var testHighlighting = Highlighting{Mode: "copulang", MIMEType: "text/x-copulang",
	Keywords: []string{"fit", "model", "with"}, Builtins: []string{"LKJ", "hmc"}}

func TestKernelJS(t *testing.T) {
	js, err := testHighlighting.KernelJS()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`CodeMirror.defineSimpleMode("copulang"`, `var keywords = ["model","with","fit"]`,
		`var builtins = ["LKJ","hmc"]`, `CodeMirror.defineMIME("text/x-copulang", "copulang")`,
		`{regex: /[-+*\/=~:<>!]/, token: "operator"}`} { // where's comparisons too
		if !bytes.Contains(js, []byte(want)) {
			t.Errorf("kernel.js lacks %s:\n%s", want, js)
		}
	}
	if out, err := exec.Command("node", "--version").Output(); err == nil {
		// Check the syntax where node is installed.
		f := filepath.Join(t.TempDir(), "kernel.js")
		os.WriteFile(f, js, 0o644)
		if out, err := exec.Command("node", "--check", f).CombinedOutput(); err != nil {
			t.Errorf("node --check kernel.js: %v\n%s", err, out)
		}
		t.Logf("syntax checked with node %s", bytes.TrimSpace(out))
	}
	bad := testHighlighting
	bad.Keywords = []string{`x"); alert(1); ("`}
	if _, err := bad.KernelJS(); err == nil {
		t.Error("a word that is not an identifier was accepted")
	}
}
