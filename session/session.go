package session

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/dsl"
	"github.com/copulang/copulang/inference"
)

// Options configures a Session.
type Options struct {
	// Dir resolves relative paths in load and export; "" is the working
	// directory.
	Dir string
	// OutDir is where `copulang run` writes figures; informational only
	// (the Output decides where figures go).
	OutDir string
}

// Session holds the bindings of one notebook kernel or script run and
// executes cells against them. It is not safe for concurrent use: the
// kernel runs one cell at a time.
type Session struct {
	opts   Options
	data   map[string]*Dataset
	models map[string]*Model
	// names lists every binding in the order it was (re)defined.
	names []string
	// figures counts figures, to name the CLI's files uniquely.
	figures int
	// fits counts fits, to give each progress display its own id.
	fits int
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
	return &Session{opts: opts, data: map[string]*Dataset{}, models: map[string]*Model{}}
}

// FigureWriter is implemented by outputs that save figures as files (the
// CLI); other outputs receive figures through Display.
type FigureWriter interface {
	WriteFigure(name string, f *Figure) error
}

// Execute runs one notebook cell. Positions in errors count lines within
// the cell. It never panics: a panic inside a statement becomes an
// InternalError. A cancelled ctx stops a running fit, keeps its draws and
// returns a KeyboardInterrupt error.
func (s *Session) Execute(ctx context.Context, code string, out Output) (MimeBundle, error) {
	err := s.run(ctx, "", []byte(code), out)
	var se *Error
	if errors.As(err, &se) && len(se.Traceback) > 0 && !strings.HasPrefix(se.Traceback[0], se.Name+":") {
		// Clients such as jupyter console print only the traceback, so
		// its first line names the error as ipykernel's do.
		se.Traceback[0] = se.Name + ": " + se.Traceback[0]
	}
	return nil, err
}

// RunScript runs a whole script file; errors carry the file name.
func (s *Session) RunScript(ctx context.Context, filename string, src []byte, out Output) error {
	return s.run(ctx, filename, src, out)
}

func (s *Session) run(ctx context.Context, filename string, src []byte, out Output) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &Error{Name: "InternalError", Value: fmt.Sprint(r),
				Traceback: append([]string{fmt.Sprintf("InternalError: %v (this is a bug in copulang; please report it)", r)},
					strings.Split(strings.TrimSpace(string(debug.Stack())), "\n")...)}
		}
	}()
	file, perr := dsl.Parse(filename, src)
	if perr != nil {
		return positionedError("SyntaxError", perr, src)
	}
	for _, st := range file.Stmts {
		if err := ctx.Err(); err != nil {
			return interrupted("before " + stmtKeyword(st))
		}
		prog, cerr := compiler.Check(&dsl.File{Pos: file.Pos, EndPos: file.EndPos, Stmts: []dsl.Stmt{st}}, s.env())
		if cerr != nil {
			return positionedError("CheckError", cerr, src)
		}
		for _, ir := range prog.Stmts {
			if err := s.exec(ctx, ir, out); err != nil {
				var se *Error
				if errors.As(err, &se) {
					return se
				}
				start, _ := st.Span()
				return runtimeError(err, start, src)
			}
		}
	}
	return nil
}

// stmtKeyword is the statement's leading keyword, for messages.
func stmtKeyword(st dsl.Stmt) string {
	name := fmt.Sprintf("%T", st)
	name = strings.TrimSuffix(strings.TrimPrefix(name, "*dsl."), "Stmt")
	return strings.ToLower(name)
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
func (s *Session) env() compiler.Env { return sessionEnv{s} }

type sessionEnv struct{ s *Session }

func (e sessionEnv) Lookup(name string) (compiler.Binding, bool) {
	if d, ok := e.s.data[name]; ok {
		return dataInfo(d), true
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

// dataInfo describes a data set to the compiler.
func dataInfo(d *Dataset) *compiler.DataInfo {
	info := &compiler.DataInfo{Name: d.Name, N: d.N(), HasTruth: d.Truth != nil, TruthK: d.TruthK}
	for j, col := range d.Columns {
		info.Columns = append(info.Columns, compiler.ColumnInfo{
			Name:    d.Names[j],
			Levels:  countLevels(col),
			Missing: countMissing(col),
			Text:    d.Labels[j] != nil,
		})
	}
	return info
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
	return info
}
