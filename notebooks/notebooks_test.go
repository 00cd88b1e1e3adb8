// Package notebooks holds copulang's shipped notebooks and the tests that run
// them through real Jupyter clients: every notebook is executed with
// nbconvert and the copulang kernel, and the first one is also run in classic
// Notebook 6 inside headless Chromium.
package notebooks

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// python is the interpreter that has Debian's Jupyter packages.
const python = "/usr/bin/python3"

const installHint = "apt-get install -y jupyter-client jupyter-console python3-nbclient jupyter-nbconvert python3-ipykernel"

// requireTool skips the test when check fails, or fails it when CI=true.
// Under -short it skips: the tests that need a tool execute whole notebooks.
func requireTool(t *testing.T, what, hint string, check func() error) {
	t.Helper()
	if testing.Short() {
		t.Skip("executes notebooks with " + what + ": skipped under -short")
	}
	if err := check(); err != nil {
		msg := fmt.Sprintf("%s not available (%v); install with: %s", what, err, hint)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

func requireNbconvert(t *testing.T) {
	requireTool(t, "Jupyter nbconvert under "+python, installHint, func() error {
		return exec.Command(python, "-c", "import nbconvert, nbclient, jupyter_client").Run()
	})
}

// kernelEnv builds the copulang binary into a temporary directory, installs
// its kernelspec under a temporary prefix and returns the environment that
// makes Jupyter find it (and nothing from the user's own Jupyter directories).
func kernelEnv(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "copulang")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	prefix := filepath.Join(dir, "prefix")
	if out, err := exec.Command(bin, "install", "--prefix", prefix).CombinedOutput(); err != nil {
		t.Fatalf("copulang install --prefix: %v\n%s", err, out)
	}
	home := filepath.Join(dir, "home")
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "JUPYTER_") || strings.HasPrefix(kv, "HOME=")
	})
	return append(env,
		"JUPYTER_PATH="+filepath.Join(prefix, "share", "jupyter"),
		"JUPYTER_CONFIG_DIR="+filepath.Join(home, ".jupyter"),
		"JUPYTER_DATA_DIR="+filepath.Join(home, ".local", "share", "jupyter"),
		"JUPYTER_RUNTIME_DIR="+filepath.Join(dir, "runtime"),
		"HOME="+home,
	)
}

// shipped lists the notebooks in this directory.
func shipped(t *testing.T) []string {
	t.Helper()
	names, err := filepath.Glob("*.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatal("no notebooks in notebooks/")
	}
	return names
}

// notebook is the part of nbformat 4 the tests read.
type notebook struct {
	Metadata struct {
		Kernelspec struct {
			Name string `json:"name"`
		} `json:"kernelspec"`
	} `json:"metadata"`
	Cells []struct {
		CellType string `json:"cell_type"`
		Metadata struct {
			Tags []string `json:"tags"`
		} `json:"metadata"`
		Source         json.RawMessage   `json:"source"`
		ExecutionCount *int              `json:"execution_count"`
		Outputs        []json.RawMessage `json:"outputs"`
	} `json:"cells"`
}

type output struct {
	OutputType string         `json:"output_type"`
	Name       string         `json:"name"`
	Ename      string         `json:"ename"`
	Evalue     string         `json:"evalue"`
	Traceback  []string       `json:"traceback"`
	Data       map[string]any `json:"data"`
	Text       any            `json:"text"`
}

func readNotebook(t *testing.T, path string) notebook {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var nb notebook
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return nb
}

// TestShippedNotebooksAreClean checks what we ship: outputs cleared, the
// copulang kernel named, every code cell non-empty.
func TestShippedNotebooksAreClean(t *testing.T) {
	for _, name := range shipped(t) {
		nb := readNotebook(t, name)
		if nb.Metadata.Kernelspec.Name != "copulang" {
			t.Errorf("%s: kernelspec %q, want copulang", name, nb.Metadata.Kernelspec.Name)
		}
		for i, c := range nb.Cells {
			if c.CellType != "code" {
				continue
			}
			if len(c.Outputs) > 0 || c.ExecutionCount != nil {
				t.Errorf("%s: cell %d has outputs; ship notebooks with outputs cleared", name, i+1)
			}
		}
	}
}

// claims lists, per notebook, text that its outputs must contain because its
// prose states it: a notebook's prose may state only what its output shows.
var claims = map[string][]string{
	// Notebook 03's live run: the RMSE plot gives each trace's last RMSE
	// and show the mean RMSE and time per iteration (its prose names them
	// and pins no figure), and both short fits warn.
	"03-paper-hmc-vs-px.ipynb": {
		"hmc (interweave) final 0.", "px (px) final 0.",
		"ms/iter", "mean_rmse", "HMC bounces per iteration",
		"R-hat above 1.01: the two halves of the chain disagree", "ESS below 100",
	},
	// Notebook 04's short fit warns and hints at extend; the extension's
	// report covers every draw and has no warning (its text says so).
	"04-missing-data-and-diagnostics.ipynb": {
		"hint: `extend short, iter = ",
		// Its warning names the worst entry, with its chain means, whose
		// rank plot follows.
		"most on short.C[Y1, Y5] (1.091): its chain means are ",
		"are not expected to agree; run longer, or compare the chains with `plot rank short.C[Y1, Y5]`",
		"farthest from the expected 10 per bin: chain ",
		"rows ordered by rhat, worst first\nparam       mean     sd      q5     q50     q95  ess_bulk  ess_tail   rhat  mcse_mean  mcse_sd\nC[Y1,Y5]",
		"extend short with gibbs (auto): 4 chains × 900 more iterations in ",
		"now 1000 iterations per chain after 500 warm-up\nmax R-hat 1.006, min bulk ESS 847, min tail ESS 1539 over 10 correlations",
		// and its fit with ess = 1000 runs rounds until it is met.
		"ess: least ESS of C 75 of the 1000 asked",
		"until the least ESS of C reached 1000 (2 extensions)",
	},
	// Notebook 06 (teaching): the recoded file's levels are its labels, the
	// latent plot respects the order, the trace marks the truth, the
	// too-short fit warns on the entry whose rank plot follows, the
	// three-factor fit names the communalities that disagree and mix slowly
	// (the latter's histogram, truth and range, follows), the check
	// passes, the recoded imputations are on the log scale, and each
	// mistake's message says how to write it.
	"06-teaching-a-class.ipynb": {
		"degree     high school    521     52.2",
		"z respects the order of y",
		"Trace plot of \"g.C[Y1, Y2]\": 2 chains × 600 draws, values in ",
		", truth -0.3118",
		"C[Y1, Y2] = ", "; true value -0.312)",
		"R-hat above 1.01: the chains disagree, most on short.C[Y1, Y2]",
		"R-hat above 1.01: the chains disagree, most on h.C[",
		"R-hat above 1.01: the chains disagree, most on w.C[",
		"R-hat above 1.01 on the aligned loadings only (C's entries are within the limits)",
		"Y3's communality, which the alignment does not change, mixes slowly too",
		"the communalities, which no rotation changes, disagree more, most Y6's",
		"Histogram of \"k3.communality[Y3]\": 2 chains × 1000 draws, mean 0.1355, range [0.0001014, 0.8596], truth 0.02252",
		"check f: no evidence that the model misses the observed dependence",
		"1    income  3.7136   0.155",
		"1    income    40   0.155",
		"hint: fit is a statement, not a function: write it without parentheses",
		"hint: data is named with the data keyword: data sim2 = simulate(...)",
		"hint: a part of a model is written with a dot, as in m.C",
		"hint: write Y ordinal Z",
		"hint: indices count from 1",
	},
	// Notebook 02's subgroups: each derivation says what it kept and why
	// it left the respondent of unknown age out.
	"02-gss.ipynb": {
		// The graph of the full model's partial correlations: its edges,
		// the strongest with their numbers, the pairs its prose says are
		// not edges (in the summary that follows it), and what an edge is
		// not.
		"graph of survey.partial: 14 of 21 pairs are edges, their central 90% interval excluding 0 (8 positive, 6 negative)",
		`Graph of survey.partial: 7 nodes, 14 of 21 pairs are edges`,
		"partial[children, age]         0.500  [ 0.456,  0.544]",
		"partial[income, degree]        0.446  [ 0.392,  0.497]",
		"partial[degree, pdegree]       0.373  [ 0.308,  0.436]",
		"partial[pincome, pdegree]      0.345  [ 0.263,  0.421]",
		"partial[income, children]      0.205  [ 0.144,  0.265]",
		"partial[income, age]           0.201  [ 0.143,  0.258]",
		"partial[pdegree, age]         -0.155  [-0.221, -0.088]",
		"partial[income,pdegree]       0.023  0.044  -0.049   0.022   0.094",
		"partial[degree,pincome]      -0.052  0.055  -0.143  -0.052   0.038",
		"C[income,pdegree]       0.171  0.035   0.113",
		"C[degree,pincome]       0.197  0.045   0.123",
		"it is not a posterior probability of an edge, which would need a prior over graphs",
		// The heatmap ordered by dependence: its neighbours' mean |value|
		// in both orders, and the order.
		"mean |value| of neighbouring columns 0.42, 0.26 in column order; columns pincome, pdegree, degree, income, age, children, pchildren",
		// The nodes ordered by dependence: the crossings and the order.
		"fewer edges cross (8 edge crossings, 15 in column order), clockwise from the top: income, age, children, degree, pchildren, pdegree, pincome.",
		"young: 521 of 1002 rows of gss (age < 40); 1 row left out because age is missing",
		"old: 480 of 1002 rows of gss (age >= 40); 1 row left out because age is missing",
		"from data/gss_hoff2007.csv, then gss[income, degree, pincome, pdegree] where age < 40",
		// The difference of the two fits: its caption says the pairing is of
		// independent posteriors, its table has P(>0), and plot intervals
		// draws the six differences.
		"posterior of by_old.C − by_young.C, the difference of paired draws: 4000 draws in 4 chains",
		"the data of by_old and by_young share no row of data/gss_hoff2007.csv, so their posteriors are independent",
		"P(>0)",
		`Posterior intervals of "by_old.C − by_young.C": 6 items`,
		"by_old.C[income, degree] − by_young.C[income, degree] = ",
		// predict: the line to quote, the share of no degree against the
		// marginal and the crosstab, the graduate degrees the model
		// predicts fewer of than the crosstab, and with two columns given
		// the few matching rows and GHK's note.
		"degree given pdegree = 0: most likely 1 (p = 0.589",
		"0      0.262  ", "     0.121    68  0.285",
		"the 239 rows of gss with pdegree = 0 and degree observed",
		"4      0.019  ", "15  0.063",
		"the 6 rows of gss with income = 50, pdegree = 3 and degree observed, the raw crosstab the model smooths (fewer than 30: read their shares as noisy); GHK with 200 replicates per draw, 10 random shifts of a 20-point lattice",
	},
	// Notebook 05's second compare refits only the model it adds.
	"05-model-checking.ipynb": {
		"compare: done: 1 model refitted 1 time each in ",
		"scores kept from an earlier compare of the same cells and settings: one, k3",
		// The three-factor fit of the GSS: its R-hat warning on C gives the
		// chain means, says the chains are short, and names the communality
		// that disagrees more.
		"R-hat above 1.01: the chains disagree, most on survey3.C[",
		": its chain means are ",
		"chains this short for how slowly it moves are not expected to agree",
		"; the communalities, which no rotation changes, disagree more, most ",
	},
}

// TestNotebookImagesExist checks that every image a notebook's Markdown
// links to (relative to the notebook, as Jupyter resolves it) exists.
func TestNotebookImagesExist(t *testing.T) {
	link := regexp.MustCompile(`!\[[^\]]*\]\(([^)\s]+)\)`)
	for _, name := range shipped(t) {
		nb := readNotebook(t, name)
		for i, c := range nb.Cells {
			if c.CellType != "markdown" {
				continue
			}
			for _, m := range link.FindAllStringSubmatch(cellSource(t, c.Source), -1) {
				if strings.Contains(m[1], "://") {
					continue
				}
				if _, err := os.Stat(filepath.FromSlash(m[1])); err != nil {
					t.Errorf("%s: cell %d links to an image that is not there: %v", name, i+1, err)
				}
			}
		}
	}
}

// cellSource joins a cell's source, stored as a string or a list of lines.
func cellSource(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var lines []string
	if err := json.Unmarshal(raw, &lines); err == nil {
		return strings.Join(lines, "")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("cell source: %v", err)
	}
	return s
}

// outputText is the text of an output: its stream text or text/plain data.
func outputText(o output) string {
	v := o.Text
	if v == nil {
		v = o.Data["text/plain"]
	}
	return joinLines(v)
}

// TestNotebooksExecute runs every shipped notebook with
// `jupyter nbconvert --to notebook --execute` and the copulang kernel, and
// checks that no cell produced an error, that the plots are there and that
// the outputs show what the prose claims (claims).
func TestNotebooksExecute(t *testing.T) {
	requireNbconvert(t)
	env := kernelEnv(t)
	for _, name := range shipped(t) {
		t.Run(strings.TrimSuffix(name, ".ipynb"), func(t *testing.T) {
			out := t.TempDir()
			abs, _ := filepath.Abs(name)
			cmd := exec.Command(python, "-m", "nbconvert", "--to", "notebook", "--execute",
				"--ExecutePreprocessor.kernel_name=copulang",
				"--ExecutePreprocessor.timeout=600",
				"--output-dir", out, abs)
			cmd.Env = env
			// Cells read data relative to the notebook, as in a notebook server.
			cmd.Dir = "."
			// A kernel nbconvert started may outlive it and keep its output open.
			cmd.WaitDelay = 10 * time.Second
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("nbconvert --execute %s: %v\n%s", name, err, b)
			}
			nb := readNotebook(t, filepath.Join(out, name))
			images := 0
			var text strings.Builder
			for i, c := range nb.Cells {
				if c.CellType != "code" {
					continue
				}
				if c.ExecutionCount == nil {
					t.Errorf("cell %d was not executed", i+1)
				}
				// A cell tagged raises-exception shows a mistake and its
				// message (nbconvert runs on past it): it must fail, and
				// with a hint.
				mistake := slices.Contains(c.Metadata.Tags, "raises-exception")
				failed := false
				for _, raw := range c.Outputs {
					var o output
					if err := json.Unmarshal(raw, &o); err != nil {
						t.Fatal(err)
					}
					switch {
					case o.OutputType == "error" && mistake:
						failed = true
						lines := strings.Split(strings.Join(o.Traceback, "\n"), "\n")
						if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "hint: ") }) {
							t.Errorf("cell %d shows a mistake whose error has no hint: %q", i+1, o.Traceback)
						}
					case o.OutputType == "error":
						t.Errorf("cell %d: %s: %s", i+1, o.Ename, o.Evalue)
					case o.OutputType == "stream" && o.Name == "stderr":
						t.Logf("cell %d stderr: %v", i+1, o.Text)
					}
					text.WriteString(outputText(o) + "\n")
					if o.OutputType == "error" {
						text.WriteString(strings.Join(o.Traceback, "\n") + "\n")
					}
					if _, ok := o.Data["image/png"]; ok {
						images++
						if !strings.HasPrefix(joinLines(o.Data["text/html"]), `<img src="data:image/svg+xml;base64,`) {
							t.Errorf("cell %d: a PNG plot without its SVG alternative", i+1)
						}
					}
				}
				if mistake && !failed {
					t.Errorf("cell %d is tagged raises-exception but raised nothing", i+1)
				}
			}
			if images == 0 {
				t.Errorf("%s produced no plots", name)
			}
			for _, want := range claims[name] {
				if !strings.Contains(text.String(), want) {
					t.Errorf("%s: the prose claims %q but no output shows it", name, want)
				}
			}
			t.Logf("%s: %d cells, %d images (GOMAXPROCS %d)", name, len(nb.Cells), images, runtime.GOMAXPROCS(0))
		})
	}
}
