package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/dsl"
	"github.com/copulang/copulang/figure"
	"github.com/copulang/copulang/inference"
)

// Options configures a Session.
type Options struct {
	// Dir resolves relative paths in load and export; "" is the working
	// directory.
	Dir string
	// TableRows, if positive, is the most rows a table shows: a longer
	// one shows its first and last TableRows/2 rows and says how many are
	// left out and which statement gives them all. The kernel sets it
	// (KernelTableRows); 0, the CLI's, shows every row.
	TableRows int
	// ImputeRows, if positive, is the most imputed cells impute shows: a
	// longer table shows its first ImputeRows rows, says how many are left
	// out and how to write them all to a file. The CLI sets it
	// (CLIImputeRows), since a data set's thousands of missing cells
	// would flood the terminal; 0 leaves the table to TableRows.
	ImputeRows int
	// TextRows, if positive, is the most rows the plain text of a long
	// table shows: the text/plain of a table longer than that (and the
	// list a value such as m.C prints) shows about a screen of it, its
	// first textHead and last textTail rows (the first textHead +
	// textTail of a table ordered worst first, and of the imputed cells),
	// and says how many are left out and which statement gives them all,
	// while its text/html keeps TableRows rows. jupyter console prints the
	// text, where a summary of a 40-column C (780 rows) or a survey's
	// imputed cells flooded the terminal; a notebook shows the HTML. The
	// kernel sets it (KernelTextRows), as pandas cuts its text at 60 rows.
	TextRows int
	// Version is the copulang release running, recorded in the
	// provenance of the files the session writes.
	Version string
}

// CLIImputeRows is the CLI's ImputeRows: about a screen.
const CLIImputeRows = 20

// KernelTableRows is the kernel's TableRows: a summary of C shows all its
// entries up to 45 columns, and a table of that size is about 0.3 MB.
const KernelTableRows = 1000

// KernelTextRows is the kernel's TextRows: a summary of C shows all its
// entries up to 11 columns (55 rows) in jupyter console.
const KernelTextRows = 60

// Session holds the bindings of one notebook kernel or script run and
// executes cells against them. Execute, Evaluate and RunScript must not be
// called concurrently (the kernel runs one cell at a time); Complete,
// Inspect and IsComplete may be called from other goroutines meanwhile: they
// read a view of the bindings published after each statement.
type Session struct {
	opts   Options
	data   map[string]*Dataset
	models map[string]*Model
	// names lists every binding in the order it was (re)defined.
	names []string
	// figureFiles holds the names of the figures written to files (the
	// CLI's), so that a figure drawn again gets a name of its own.
	figureFiles map[string]bool
	// described is the data set whose one-line description the statement
	// running printed (load, simulate), and previous that of the statement
	// before it in the cell or script ("" for none), so that show of a data
	// set just bound does not print its description again.
	described, previous string
	// fits counts fits and the other statements that show progress, and
	// displayIDs is a random word of this session's, to give each progress
	// display an id of its own (see progressID).
	fits       int
	displayIDs string
	// preloaded holds the data files read while a cell was checked, by
	// loadKey, until their load statements run; emptied after each cell.
	preloaded map[string]*preloaded
	// derived holds the data derived while a cell was checked, so that
	// the statement's check and run take them as made (and their counts
	// for the compiler, which take a pass over every cell); cleared, as
	// preloaded is, when the cell ends.
	derived map[derivedKey]*derivedEntry
	// stopFit cancels the running fit only (nil when none runs); guarded
	// by fitMu, as InterruptFit is called from other goroutines.
	fitMu   sync.Mutex
	stopFit context.CancelFunc
	// view is what Complete and Inspect read; see publishView.
	view atomic.Pointer[bindingsView]
	// scores are the held-out scores compare computed or read (scores.go).
	scores scoreCache
	// files writes fit files into place (osFiles; in tests, a recorder).
	files fileSystem
	// readProgressFrom, when not 0, replaces the constant of that name
	// (the size of a fit file whose reading shows progress), in tests.
	readProgressFrom int64
	// boundAt is where each name was last bound, and runs counts the cells
	// (or scripts) run, so that a name bound again as another kind can say
	// where it was bound before (see rebindWarning).
	boundAt map[string]bindSite
	runs    int
	// cell is the execution count of the cell running, as a notebook shows
	// it (In [3]); 0 when it has none (a script, a silent execution).
	cell int
}

// bindSite is where a data or model statement bound a name: its position,
// the run it was in and that run's execution count (0 if none).
type bindSite struct {
	at        dsl.Position
	run, cell int
}

// Model is a model binding: its checked declaration, its data, and its
// latest fit (nil until fit).
type Model struct {
	Decl    *compiler.DeclareModel
	Data    *Dataset
	Cols    []int // indices into Data.Columns, in the model's column order
	Fit     *inference.Result
	FitStmt *compiler.Fit
	Plan    *compiler.InferencePlan
	// FitFile is the file Fit was read from (fit's file setting), "" when
	// it was sampled.
	FitFile string
	// sampledBy is the version of the copulang that sampled Fit (a fit
	// file's, when read from one; "" if not recorded), and after an
	// extension by another, that one's too.
	sampledBy string
	// kept is the file that holds Fit, read or written (a fit, or an
	// extension of it kept after it), for compare to keep its scores in and
	// extend to read or write its extensions; nil when there is none.
	kept *keptFile
	// extendedFrom is, once Fit is an extension of a fit kept in a file
	// that was not written there (stopped, or the file could not be
	// written), that file, which holds the fit before the extension: compare keeps
	// there the scores of Fit's settings too (they depend on the settings
	// alone), for a notebook run again, which reads that fit and extends
	// it again, to read them. nil otherwise.
	extendedFrom *keptFile
	// extensions are the extend statements that made Fit from the fit
	// statement's draws, in order, for export's provenance; nil for a fit
	// not extended.
	extensions []extensionRecord
	// turns remembers residualTurns for the fit of: its median and 90%
	// quantile, and whether there were any.
	turns struct {
		of          *inference.Result
		median, q90 float64
		ok          bool
	}
}

// Names returns the model's column names, in order.
func (m *Model) Names() []string {
	out := make([]string, len(m.Cols))
	for k, j := range m.Cols {
		out[k] = m.Data.Names[j]
	}
	return out
}

// New returns an empty session.
func New(opts Options) *Session {
	s := &Session{opts: opts, data: map[string]*Dataset{}, models: map[string]*Model{}, preloaded: map[string]*preloaded{}, derived: map[derivedKey]*derivedEntry{}, boundAt: map[string]bindSite{}, files: osFiles{}}
	var word [6]byte
	rand.Read(word[:])
	s.displayIDs = hex.EncodeToString(word[:])
	s.publishView()
	return s
}

// progressID counts one more statement that shows its progress (kind is
// fit, check or compare) and returns the id of its display. The id is unique
// to this session too, not only within it: a frontend updates every output
// shown under a display id it has seen, and Notebook 6 forgets them only when
// it restarts the kernel itself, so after a kernel that died was restarted
// (or one restarted from another tab) a new session's first fit, under the
// old session's id, drew its progress over the old fit's output in another
// cell.
func (s *Session) progressID(kind string) string {
	s.fits++
	return fmt.Sprintf("copulang-%s-%s-%d", kind, s.displayIDs, s.fits)
}

// nameTraceback makes the first line of err's traceback, if err is an
// *Error, name the error ("CheckError: ..."), as ipykernel's do: clients such
// as jupyter console print only the traceback. An empty traceback becomes
// that line with the error's value.
func nameTraceback(err error) {
	var se *Error
	switch {
	case !errors.As(err, &se):
	case len(se.Traceback) == 0:
		se.Traceback = []string{se.Name + ": " + se.Value}
	case !strings.HasPrefix(se.Traceback[0], se.Name+":"):
		se.Traceback[0] = se.Name + ": " + se.Traceback[0]
	}
}

// FigureWriter is implemented by outputs that save figures as files (the
// CLI); other outputs receive figures through Display.
type FigureWriter interface {
	WriteFigure(name string, f *figure.Figure) error
}

// Execute runs one notebook cell. Positions in errors count lines within
// the cell. It never panics: a panic inside a statement becomes an
// InternalError. A cancelled ctx stops a running fit, keeps its draws and
// returns a KeyboardInterrupt error.
func (s *Session) Execute(ctx context.Context, code string, out Output) (MimeBundle, error) {
	return s.ExecuteCell(ctx, 0, code, out)
}

// ExecuteCell runs one notebook cell as Execute does; count is its
// execution count, the N of the In [N] a notebook shows beside it (0 when
// it has none, as for a silent execution), by which later cells' messages
// name it.
func (s *Session) ExecuteCell(ctx context.Context, count int, code string, out Output) (MimeBundle, error) {
	if e, ok := out.(Exiter); ok {
		if name, ok := exitCommand(code); ok && !s.bound(name) {
			e.AskExit()
			return nil, nil
		}
	}
	if p, ok := out.(Pager); ok {
		if word, ok := helpQuery(code); ok {
			if text, ok := compiler.Doc(word); ok {
				p.Page(MimeBundle{"text/plain": text})
				return nil, nil
			}
		}
	}
	result, err := s.run(ctx, "", []byte(code), count, out)
	nameTraceback(err)
	if err != nil {
		return nil, err
	}
	return result, nil
}

// exitCommand reports whether code is only exit or quit (with or without
// "()", blanks and a comment), the words with which jupyter console's
// users leave it, and returns the word.
func exitCommand(code string) (string, bool) {
	line, _ := onlyLine(code)
	word := strings.TrimSuffix(line, "()")
	return word, word == "exit" || word == "quit"
}

// onlyLine returns the one line of code that is neither blank nor a
// comment, trimmed and without its comment, and whether there is exactly
// one.
func onlyLine(code string) (string, bool) {
	only := ""
	for _, line := range strings.Split(strings.TrimPrefix(code, "\ufeff"), "\n") {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		if only != "" {
			return "", false
		}
		only = line
	}
	return only, only != ""
}

// helpQuery reports whether code is only IPython's question for help about
// a word, WORD? or ?WORD (or WORD??, with blanks and a comment), and
// returns the word. In a notebook its answer goes to the pager, as IPython's
// does; a word without help is left to the parser, whose error says how to
// ask.
func helpQuery(code string) (string, bool) {
	word, _ := onlyLine(code)
	switch {
	case strings.HasPrefix(word, "?"):
		word = strings.TrimPrefix(strings.TrimPrefix(word, "?"), "?")
	case strings.HasSuffix(word, "?"):
		word = strings.TrimSuffix(strings.TrimSuffix(word, "?"), "?")
	default:
		return "", false
	}
	word = strings.TrimSpace(word)
	return word, word != "" && !strings.ContainsAny(word, "? \t")
}

// bound reports whether name is a data set or a model of the session.
func (s *Session) bound(name string) bool {
	_, isData := s.data[name]
	_, isModel := s.models[name]
	return isData || isModel
}

// RunScript runs a whole script file; errors carry the file name.
// A script's expression statements are displayed as they run.
func (s *Session) RunScript(ctx context.Context, filename string, src []byte, out Output) error {
	result, err := s.run(ctx, filename, src, 0, out)
	if result != nil {
		out.Display(result, "")
	}
	return err
}

// run runs the statements of src and returns the value of the last one if
// it is an expression statement (the cell's result); the values of earlier
// expression statements are displayed as they come. cell is its execution
// count (0 if none).
func (s *Session) run(ctx context.Context, filename string, src []byte, cell int, out Output) (result MimeBundle, err error) {
	defer s.publishView()
	defer func() {
		if r := recover(); r != nil {
			err = &Error{Name: "InternalError", Value: fmt.Sprint(r),
				Traceback: append([]string{fmt.Sprintf("InternalError: %v (this is a bug in copulang; please report it)", r)},
					strings.Split(strings.TrimSpace(string(debug.Stack())), "\n")...)}
		}
	}()
	s.runs++
	s.cell = cell
	file, perr := dsl.Parse(filename, src)
	if perr != nil {
		return nil, positionedError("SyntaxError", perr, src)
	}
	// Check the whole cell before running any of it, reading the data it
	// loads and testing the files it writes, so that a mistake in its last
	// line is reported before a long fit. Each statement is checked again
	// just before it runs, against the bindings as they then are.
	defer clear(s.preloaded)
	defer clear(s.derived)
	if _, cerr := compiler.Check(file, s.env(ctx)); cerr != nil {
		if ctx.Err() != nil {
			// The interrupt stopped the reading of a data file.
			return nil, interrupted("while the cell's data files were read")
		}
		return nil, positionedError("CheckError", cerr, src)
	}
	s.described = ""
	for _, st := range file.Stmts {
		if err := ctx.Err(); err != nil {
			return nil, interrupted("before " + stmtKeyword(st))
		}
		if result != nil {
			out.Display(result, "")
			result = nil
		}
		prog, cerr := compiler.Check(&dsl.File{Pos: file.Pos, EndPos: file.EndPos, Stmts: []dsl.Stmt{st}}, s.env(ctx))
		if cerr != nil {
			if ctx.Err() != nil {
				// A data file that changed since the cell's check was
				// being read again.
				return nil, interrupted("while a data file was read")
			}
			return nil, positionedError("CheckError", cerr, src)
		}
		for _, ir := range prog.Stmts {
			s.previous, s.described = s.described, ""
			var err error
			if r, ok := ir.(*compiler.Result); ok {
				result, err = s.result(r)
			} else {
				err = s.exec(ctx, ir, out)
			}
			if err != nil {
				var se *Error
				if errors.As(err, &se) {
					return nil, se
				}
				start, _ := st.Span()
				return nil, runtimeError(err, start, src)
			}
		}
		s.publishView()
	}
	return result, nil
}

// stmtKeyword is the statement's leading keyword, for messages; a bare
// expression has none.
func stmtKeyword(st dsl.Stmt) string {
	if _, ok := st.(*dsl.ExprStmt); ok {
		return "an expression"
	}
	return dsl.Keyword(st)
}

// bind records name as the newest binding.
func (s *Session) bind(name string) {
	for i, n := range s.names {
		if n == name {
			s.names = append(s.names[:i], s.names[i+1:]...)
			break
		}
	}
	s.names = append(s.names, name)
}

// env is the compiler's view of the session's bindings.
// env is the session's bindings and files as the checker sees them; ctx
// stops the reading of a data file.
func (s *Session) env(ctx context.Context) compiler.Env { return sessionEnv{s, ctx} }

type sessionEnv struct {
	s   *Session
	ctx context.Context
}

func (e sessionEnv) Lookup(name string) (compiler.Binding, bool) {
	if d, ok := e.s.data[name]; ok {
		return d.Info(), true
	}
	if m, ok := e.s.models[name]; ok {
		return modelInfo(m), true
	}
	return nil, false
}

func (e sessionEnv) Names() []string {
	out := append([]string(nil), e.s.names...)
	sort.Strings(out)
	return out
}

// Info describes the data set to the compiler (compiler.Plan and the
// checker): its rows and, per column, the distinct values and missing cells.
func (d *Dataset) Info() *compiler.DataInfo {
	d.columnInfoOnce.Do(func() {
		for j, col := range d.Columns {
			d.columnInfo = append(d.columnInfo, compiler.ColumnInfo{
				Name:       d.Names[j],
				Levels:     countLevels(col),
				Missing:    countMissing(col),
				Singletons: countSingletons(col),
				Text:       j < len(d.Labels) && d.Labels[j] != nil,
				Labels:     labelsOf(d, j),
				Rarer:      rarerLevel(col),
				Values:     knownValues(d, j),
			})
			if info := &d.columnInfo[j]; info.Values == nil && !info.Text && info.Levels > 0 {
				info.ValuesOf = func() []float64 { return distinctValues(d.Columns[j]) }
			}
		}
	})
	// A copy each time: callers may change what they get (ReadData renames it).
	cols := slices.Clone(d.columnInfo)
	for j := range cols {
		cols[j].Labels = slices.Clone(cols[j].Labels)
	}
	return &compiler.DataInfo{Name: d.Name, N: d.N(), HasTruth: d.Truth != nil, TruthK: d.TruthK, TruthDropped: d.TruthDropped, Columns: cols}
}

// knownValues is numeric column j's distinct observed values, ascending,
// when it has at most compiler.MaxKnownValues of them, else nil.
func knownValues(d *Dataset, j int) []float64 {
	if j < len(d.Labels) && d.Labels[j] != nil {
		return nil
	}
	var values []float64
	seen := map[float64]bool{}
	for _, v := range d.Columns[j] {
		if v == v && !seen[v] {
			if len(seen) == compiler.MaxKnownValues {
				return nil
			}
			seen[v] = true
			values = append(values, v)
		}
	}
	slices.Sort(values)
	return values
}

// distinctValues are col's distinct observed values, ascending.
func distinctValues(col []float64) []float64 {
	values := slices.DeleteFunc(slices.Clone(col), func(v float64) bool { return v != v })
	slices.Sort(values)
	return slices.Compact(values)
}

// labelsOf is column j's labels, lowest first, or nil for numbers.
func labelsOf(d *Dataset, j int) []string {
	if j < len(d.Labels) {
		return slices.Clone(d.Labels[j])
	}
	return nil
}

// modelInfo describes a model binding to the compiler.
func modelInfo(m *Model) *compiler.ModelInfo {
	info := &compiler.ModelInfo{
		Name:    m.Decl.Name,
		Data:    m.Decl.Data,
		Columns: m.Names(),
		Model:   m.Decl.Model,
		Fitted:  m.Fit != nil,
	}
	if fm, ok := m.Decl.Model.(inference.FactorModel); ok {
		info.K = fm.K
	}
	if m.Fit != nil {
		info.Method = m.Fit.Method
	}
	// The values of the data the model was declared on, though its name
	// may be bound to other data since.
	if m.Data != nil {
		cols := m.Data.Info().Columns
		info.Values = make([][]float64, len(m.Cols))
		info.ValuesOf = make([]func() []float64, len(m.Cols))
		for k, dj := range m.Cols {
			info.Values[k], info.ValuesOf[k] = cols[dj].Values, cols[dj].ValuesOf
		}
	}
	return info
}
