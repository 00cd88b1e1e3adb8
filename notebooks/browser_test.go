package notebooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

const chromium = "/usr/bin/chromium"

// browserSession is classic Notebook 6 serving a temporary copy of some
// notebooks, with headless Chromium showing one of them.
type browserSession struct {
	ctx     context.Context // the page, with the test's deadline
	logPath string          // the notebook server's log
	poll    chromedp.PollOption
}

// openInBrowser starts a notebook server on a temporary directory holding
// files (name → content, or copies of repository files when content is
// nil), opens notebook name in Chromium and waits for its kernel. Everything
// stops at the end of the test.
func openInBrowser(t *testing.T, name string, files map[string][]byte, timeout time.Duration) *browserSession {
	t.Helper()
	requireTool(t, "Chromium", "apt-get install -y chromium", func() error {
		_, err := os.Stat(chromium)
		return err
	})
	requireTool(t, "classic Notebook 6 under "+python, "apt-get install -y python3-notebook", func() error {
		return exec.Command(python, "-c", "import notebook").Run()
	})
	requireNbconvert(t)
	env := kernelEnv(t)

	// Serve a copy, so that the notebook server's autosave never touches the repository.
	root := t.TempDir()
	for f, content := range files {
		if content == nil {
			copyFile(t, f, filepath.Join(root, f))
			continue
		}
		if err := os.WriteFile(filepath.Join(root, f), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	port := freePort(t)
	const token = "copulang-browser-test"
	server := exec.Command(python, "-m", "notebook", "--no-browser", "--allow-root",
		"--ip=127.0.0.1", fmt.Sprintf("--port=%d", port), "--port-retries=0",
		"--NotebookApp.token="+token, "--notebook-dir="+root)
	server.Env = env
	logPath := filepath.Join(t.TempDir(), "notebook-server.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFile.Close() })
	server.Stdout, server.Stderr = logFile, logFile
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		server.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { server.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			server.Process.Kill()
			<-done
		}
	})
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	if err := waitHTTP(base+"/api/status?token="+token, 60*time.Second); err != nil {
		log, _ := os.ReadFile(logPath)
		t.Fatalf("notebook server did not start: %v\n%s", err, log)
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.WindowSize(1280, 2000),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	// The first Run starts the browser; its context must carry no timeout.
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/notebooks/"+name+"?token="+token)); err != nil {
		failWithLog(t, "opening the notebook", err, logPath)
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	t.Cleanup(cancel)
	b := &browserSession{ctx: tctx, logPath: logPath, poll: chromedp.WithPollingInterval(250 * time.Millisecond)}
	const connected = `typeof Jupyter !== "undefined" && Jupyter.notebook && Jupyter.notebook.kernel && Jupyter.notebook.kernel.is_connected()`
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](connected, b.poll)); err != nil {
		failWithLog(t, "waiting for the kernel to connect", err, logPath)
	}
	return b
}

// TestBrowserRunsIntroNotebook opens 01-intro-copulas in classic Notebook 6
// in headless Chromium, runs all cells through the notebook's own UI code,
// and checks that every cell ran, none failed, and images are on the page.
// The screenshot is kept in the test's temporary directory (logged with -v).
func TestBrowserRunsIntroNotebook(t *testing.T) {
	const name = "01-intro-copulas.ipynb"
	files := map[string][]byte{name: nil}
	if data, _ := filepath.Glob("data/*"); len(data) > 0 {
		for _, f := range data {
			files[f] = nil
		}
	}
	b := openInBrowser(t, name, files, 6*time.Minute)
	tctx, poll, logPath := b.ctx, b.poll, b.logPath
	if _, err := chromedp.Run(tctx, chromedp.Evaluate[bool](`Jupyter.notebook.execute_all_cells(); true`)); err != nil {
		failWithLog(t, "Run All", err, logPath)
	}
	// Done when every code cell has a numeric prompt (it shows * while queued
	// or running) and the kernel indicator is idle.
	const finished = `(() => {
		const cells = Jupyter.notebook.get_cells().filter(c => c.cell_type === "code");
		const ran = cells.every(c => typeof c.input_prompt_number === "number");
		const idle = document.querySelector("#kernel_indicator_icon").classList.contains("kernel_idle_icon");
		return ran && idle;
	})()`
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](finished, poll)); err != nil {
		failWithLog(t, "waiting for all cells to run", err, logPath)
	}
	count := func(selector string) int {
		n, err := chromedp.Run(tctx, chromedp.Evaluate[int](fmt.Sprintf("document.querySelectorAll(%q).length", selector)))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Notebook 6 prefers text/html, a figure's <img> of its SVG, to image/png.
	images, broken := loadedImages(t, tctx)
	errorsShown := count(".output_area .output_error")
	outputs := count(".output_area")
	shot, err := chromedp.Run(tctx, chromedp.FullScreenshot(80))
	if err != nil {
		t.Fatal(err)
	}
	shotPath := filepath.Join(t.TempDir(), "01-intro-copulas.png")
	if err := os.WriteFile(shotPath, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes); %d outputs, %d images", shotPath, len(shot), outputs, images)
	if errorsShown > 0 {
		t.Errorf("%d cells show an error", errorsShown)
	}
	if images == 0 {
		t.Errorf("no image on the page after Run All")
	}
	if broken > 0 {
		t.Errorf("%d images on the page did not load", broken)
	}
	if outputs == 0 {
		t.Errorf("no outputs on the page after Run All")
	}
}

// loadedImages counts the images in the page's outputs that loaded and
// those that did not (a broken or empty data: URI).
func loadedImages(t *testing.T, ctx context.Context) (loaded, broken int) {
	t.Helper()
	const js = `(() => {
		const imgs = [...document.querySelectorAll(".output_area img")];
		const ok = imgs.filter(i => i.complete && i.naturalWidth > 0).length;
		return [ok, imgs.length - ok];
	})()`
	n, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](js))
	if err != nil {
		t.Fatal(err)
	}
	return n[0], n[1]
}

func failWithLog(t *testing.T, what string, err error, logPath string) {
	t.Helper()
	log, _ := os.ReadFile(logPath)
	t.Fatalf("%s: %v\nnotebook server log:\n%s", what, err, log)
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func waitHTTP(url string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return errors.New("timed out")
}

// TestBrowserShowsSavedFigure opens a saved notebook's figure in Notebook 6
// without running it, as someone opening a notebook they were sent does:
// its outputs are untrusted, so Notebook sanitises text/html and ignores
// image/svg+xml. The figure must show as its SVG (vector) and load: the
// sanitiser keeps an <img>'s data: URI.
func TestBrowserShowsSavedFigure(t *testing.T) {
	requireNbconvert(t)
	executed := executeFigureNotebook(t, kernelEnv(t))
	b := openInBrowser(t, "figure.ipynb", map[string][]byte{"figure.ipynb": executed}, 2*time.Minute)
	const trusted = `Jupyter.notebook.trusted`
	if isTrusted, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](trusted)); err != nil || isTrusted {
		t.Fatalf("the saved notebook is trusted (%v): the test needs untrusted outputs", err)
	}
	const loaded = `[...document.querySelectorAll(".output_area img")].some(i => i.complete && i.naturalWidth > 0)`
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](loaded, b.poll)); err != nil {
		failWithLog(t, "waiting for the figure to load", err, b.logPath)
	}
	images, broken := loadedImages(t, b.ctx)
	if broken > 0 {
		t.Errorf("%d of %d images did not load", broken, images+broken)
	}
	src, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector(".output_area img").src.slice(0, 40)`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(src, "data:image/svg+xml;base64,") {
		t.Errorf("the saved figure shows as %q…, not as its SVG", src)
	}
}
