package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/dsl"
	"github.com/copulang/copulang/inference"
)

// exec runs one checked statement.
func (s *Session) exec(ctx context.Context, st compiler.Stmt, out Output) error {
	switch x := st.(type) {
	case *compiler.LoadData:
		return s.load(ctx, x, out)
	case *compiler.SimulateData:
		return s.simulate(ctx, x, out)
	case *compiler.DeriveData:
		return s.derive(x, out)
	case *compiler.DeclareModel:
		return s.declare(x, out)
	case *compiler.Explain:
		m, err := s.model(x.Model)
		if err != nil {
			return err
		}
		plan, err := compiler.Plan(m.Decl, m.Data.Info(), x.Fit)
		if err != nil {
			return err
		}
		out.Stream("stdout", strings.TrimRight(plan.Explain(), "\n")+"\n")
		// What fit would say of data bound anew, explain says before it.
		if note := reboundDataNote(m, s.data); note != "" {
			out.Stream("stdout", "note: "+note+"\n")
		}
		return nil
	case *compiler.Fit:
		return s.fit(ctx, x, out)
	case *compiler.Extend:
		return s.extend(ctx, x, out)
	case *compiler.Summary:
		return s.summary(ctx, x, out)
	case *compiler.PlotStmt:
		if x.Path != "" {
			out = &figureTo{Output: out, ctx: ctx, shown: x.Path, statement: plotStatement(x)}
		}
		return s.plot(x, out)
	case *compiler.Impute:
		return s.impute(ctx, x, out)
	case *compiler.Predict:
		return s.predict(ctx, x, out)
	case *compiler.Export:
		return s.export(ctx, x, out)
	case *compiler.Show:
		return s.show(x, out)
	case *compiler.CheckStmt:
		return s.check(ctx, x, out)
	case *compiler.Compare:
		return s.compareModels(ctx, x, out)
	case *compiler.Print:
		return s.print(x, out)
	case *compiler.Help:
		return s.help(x, out)
	case *compiler.ClearOutput:
		clearOutput(out)
		return nil
	}
	return fmt.Errorf("statement %T is not supported yet", st)
}

// path resolves a path of a load or export statement.
func (s *Session) path(p string) string {
	if filepath.IsAbs(p) || s.opts.Dir == "" {
		return p
	}
	return filepath.Join(s.opts.Dir, p)
}

func (s *Session) model(name string) (*Model, error) {
	m, ok := s.models[name]
	if !ok {
		return nil, fmt.Errorf("%s is not a model", name)
	}
	return m, nil
}

func (s *Session) fitted(name string) (*Model, error) {
	m, err := s.model(name)
	if err != nil {
		return nil, err
	}
	if m.Fit == nil || len(m.Fit.C) == 0 || len(m.Fit.C[0]) == 0 {
		return nil, fmt.Errorf("model %s has no draws yet: run `fit %s` first", name, name)
	}
	return m, nil
}

func (s *Session) setData(d *Dataset, at dsl.Position, out Output) {
	s.rebindWarning(d.Name, "data", at, false, out)
	delete(s.models, d.Name)
	s.data[d.Name] = d
	s.bind(d.Name)
}

// rebindWarning warns when the statement at binds name as kind ("data" or
// "model") while it names a binding of the other kind, which the new one
// replaces: model gss { Y = gss ... } leaves the data set without a name,
// and data m = load(...) drops the model m and its fit. Both positions are
// given, with the earlier one's cell when it was another (its execution
// count, In [N], when the kernel gave one); kept says that the new model is
// declared on the data it replaces. It records where name is bound now.
func (s *Session) rebindWarning(name, kind string, at dsl.Position, kept bool, out Output) {
	before, seen := s.boundAt[name]
	s.boundAt[name] = bindSite{at: at, run: s.runs, cell: s.cell}
	where := func(site bindSite) string {
		w := fmt.Sprintf("at %d:%d", site.at.Line, site.at.Column)
		switch {
		case site.run == s.runs:
		case site.cell > 0:
			w = fmt.Sprintf("in cell [%d] %s", site.cell, w)
		default:
			w += " of an earlier cell"
		}
		return w
	}
	_, wasData := s.data[name]
	m, wasModel := s.models[name]
	var msg string
	switch {
	case kind == "model" && wasData:
		msg = fmt.Sprintf("model %s replaces data %s", name, name)
		if seen {
			msg += " (bound " + where(before) + ")"
		}
		msg += fmt.Sprintf(": %s names the model now, and the data set can no longer be used by name", name)
		if kept {
			msg += " (the model keeps it as its data)"
		}
		msg += "; give the model another name to keep both"
	case kind == "data" && wasModel:
		what := "the model is gone"
		if m.Fit != nil {
			what = "the model and its fit are gone"
		}
		msg = fmt.Sprintf("data %s replaces model %s", name, name)
		if seen {
			msg += " (declared " + where(before) + ")"
		}
		msg += fmt.Sprintf(": %s names the data set now, and %s; give the data another name to keep both", name, what)
	default:
		return
	}
	prefix := fmt.Sprintf("%d:%d", at.Line, at.Column)
	if at.Filename != "" {
		prefix = at.Filename + ":" + prefix
	}
	out.Stream("stderr", "warning: "+prefix+": "+msg+"\n")
}

func (s *Session) load(ctx context.Context, x *compiler.LoadData, out Output) error {
	d, warnings, err := s.readData(ctx, x)
	if err != nil && ctx.Err() != nil {
		return interrupted("while " + x.Path + " was read")
	}
	if err != nil {
		return fmt.Errorf("%s: %w", x.Path, err)
	}
	delete(s.preloaded, loadKey(s.path(x.Path), x))
	d.Name, d.Source, d.LoadOptions = x.Name, x.Path, loadOptionsText(x)
	for _, w := range warnings {
		out.Stream("stderr", fmt.Sprintf("warning: %s: %s\n", x.Path, w))
	}
	s.setData(d, x.At, out)
	out.Stream("stdout", describeData(d)+"\n")
	s.described = d.Name
	return nil
}

func (s *Session) simulate(ctx context.Context, x *compiler.SimulateData, out Output) error {
	sim, err := inference.SimulateContext(ctx, inference.SimSpec{P: x.P, K: x.K, N: x.N, Levels: x.Levels, Seed: x.Seed, Missing: x.Missing})
	if errors.Is(err, context.Canceled) {
		return interrupted("simulate before data " + x.Name + " was drawn")
	}
	if err != nil {
		return err
	}
	kind := fmt.Sprintf("FullCopula(p = %d)", x.P)
	if x.K > 0 {
		kind = fmt.Sprintf("FactorCopula(p = %d, k = %d)", x.P, x.K)
	}
	// The source names every setting the data depend on: it is what the
	// data's description and an export's provenance say made them.
	missing := ""
	if x.Missing > 0 {
		missing = fmt.Sprintf(", missing = %g", x.Missing)
	}
	d := &Dataset{
		Name: x.Name, Names: sim.Names, Columns: sim.Columns, Labels: make([][]string, len(sim.Columns)),
		Source: fmt.Sprintf("simulate(%s, n = %d, levels = %d, seed = %d%s)", kind, x.N, x.Levels, x.Seed, missing),
		Truth:  sim, TruthK: x.K,
	}
	s.setData(d, x.At, out)
	out.Stream("stdout", describeData(d)+"; the true C is kept for `plot rmse` and `plot heatmap "+d.Name+"`\n")
	s.described = d.Name
	return nil
}

// describeData is the one-line description of a data set printed when it
// is bound.
func describeData(d *Dataset) string {
	missing := 0
	for _, col := range d.Columns {
		missing += countMissing(col)
	}
	names := columnTexts(d.Names)
	suffix := ""
	if len(names) > 8 {
		names, suffix = names[:8], ", ..."
	}
	return fmt.Sprintf("data %s: %s × %s (%s%s), %s, from %s",
		d.Name, plural(d.N(), "row"), plural(len(d.Names), "column"), strings.Join(names, ", "), suffix, plural(missing, "missing cell"), d.origin())
}

func (s *Session) declare(x *compiler.DeclareModel, out Output) error {
	d, ok := s.data[x.Data]
	if !ok {
		return fmt.Errorf("%s is not a data set", x.Data)
	}
	m := &Model{Decl: x, Data: d}
	for _, c := range x.Columns {
		j := d.column(c)
		if j < 0 {
			return fmt.Errorf("data %s has no column %s", d.Name, c)
		}
		m.Cols = append(m.Cols, j)
	}
	if len(m.Cols) == 0 {
		for j := range d.Names {
			m.Cols = append(m.Cols, j)
		}
	}
	s.rebindWarning(x.Name, "model", x.At, x.Data == x.Name, out)
	delete(s.data, x.Name)
	s.models[x.Name] = m
	s.bind(x.Name)
	out.Stream("stdout", fmt.Sprintf("model %s: %s on %d columns of %s (%d rows)\n", x.Name, modelKind(x.Model), len(m.Cols), d.Name, d.N()))
	return nil
}

// modelKind describes a model's prior structure in words.
func modelKind(m inference.Model) string {
	switch x := m.(type) {
	case inference.FactorModel:
		prior := "normal loadings"
		if _, ok := x.Loadings.(inference.GDPLoadings); ok {
			prior = "GDP shrinkage loadings"
		}
		return fmt.Sprintf("Gaussian copula factor model with k = %d (%s)", x.K, prior)
	case inference.FullCorrelation:
		switch pr := x.Prior.(type) {
		case inference.LKJ:
			return fmt.Sprintf("Gaussian copula, full correlation, LKJ(eta = %g) prior", pr.Eta)
		case inference.InverseWishart:
			if pr.DF > 0 {
				return fmt.Sprintf("Gaussian copula, full correlation, inverse-Wishart(df = %g) prior", pr.DF)
			}
		}
		return "Gaussian copula, full correlation, inverse-Wishart prior"
	}
	return fmt.Sprintf("%T", m)
}

// columns returns the model's data columns in model order.
func (m *Model) columns() [][]float64 {
	cols := make([][]float64, len(m.Cols))
	for k, j := range m.Cols {
		cols[k] = m.Data.Columns[j]
	}
	return cols
}

func (s *Session) export(ctx context.Context, x *compiler.Export, out Output) error {
	if x.Data != "" {
		return s.exportData(ctx, x, out)
	}
	m, err := s.fitted(x.Model)
	if err != nil {
		return err
	}
	what := x.Model
	writeDraws := func(w io.Writer) error { return WriteDraws(w, m.Fit) }
	writeColumns := func(w io.Writer) error { return WriteColumns(w, m.Fit) }
	var extra [][2]string
	if x.Part != nil {
		_, ps, err := s.params(x.Part)
		if err != nil {
			return err
		}
		what = partLabel(m, x.Part)
		writeDraws = func(w io.Writer) error { return writeParamDraws(w, ps) }
		writeColumns = func(w io.Writer) error { return writeParamColumns(w, ps) }
		extra = [][2]string{{"quantity", what}}
	}
	statement := "export " + what
	path := s.path(x.Path)
	if stream := notAFile(path); stream != "" {
		// /dev/stdout, a pipe: the draws go there, and no sidecar is
		// written beside it (as root, /dev/stdout.provenance.csv was).
		if err := s.writeFile(ctx, path, writeDraws); err != nil {
			return writeError(statement, path, "cannot export", err)
		}
		out.Stream("stdout", fmt.Sprintf("wrote %d draws of %s to %s, %s, so without the sidecars that name its columns and say what made them\n", m.Fit.KeptDraws(), what, path, stream))
		return nil
	}
	if err := s.overwritableAll(x.Path, ColumnsPath(x.Path), ProvenancePath(x.Path)); err != nil {
		return fmt.Errorf("cannot export %s: %w", what, err)
	}
	if err := s.writeFile(ctx, path, writeDraws); err != nil {
		return writeError(statement, path, "cannot export", err)
	}
	sidecar := ColumnsPath(path)
	if err := s.writeFile(ctx, sidecar, writeColumns); err != nil {
		return writeError(statement, sidecar, "cannot export", err)
	}
	provenance, err := s.writeProvenance(ctx, x.Model, m, path, statement, extra...)
	if err != nil {
		return err
	}
	out.Stream("stdout", fmt.Sprintf("wrote %d draws of %s to %s, the names of its columns to %s, and what made them to %s\n", m.Fit.KeptDraws(), what, path, sidecar, provenance))
	return nil
}

// writeFile writes path with write, which stops at its next write once ctx
// is done (a kernel interrupt, or the CLI's second Ctrl-C): the draws of a
// large fit take minutes to write. It writes into place through s.files
// (writeInPlace), so that a crash or interrupt never leaves a partial file
// that looks whole.
func (s *Session) writeFile(ctx context.Context, path string, write func(io.Writer) error) error {
	return writeInPlace(s.files, path, func(w io.Writer) error { return write(ctxWriter{ctx, w}) })
}

// WriteFile writes path with write as export does: to a temporary file
// beside it, synced and renamed over it (writeInPlace). copulang run
// writes its figures with it.
func WriteFile(path string, write func(io.Writer) error) error {
	return writeInPlace(osFiles{}, path, write)
}

// writeInPlace writes path with write to a temporary file in its
// directory, synced, then renamed over path, the directory synced after
// (writeTemporary, renameInPlace): a crash, a full disk or an interrupt
// leaves the file before or the file after, never half of one (written in
// place, a partial CSV of draws read as a shorter fit). A symbolic link at
// path is followed, so that the file it names is replaced, not the link;
// a path that exists but is not a regular file (/dev/stdout, a named
// pipe) cannot be renamed over and is written as it is. The temporary
// files of writes to path by processes now gone are removed first.
func writeInPlace(files fileSystem, path string, write func(io.Writer) error) error {
	if info, err := os.Lstat(path); err == nil && info.Mode()&os.ModeSymlink != 0 {
		if target, err := filepath.EvalSymlinks(path); err == nil {
			path = target
		}
	}
	if info, err := os.Stat(path); err == nil && !info.Mode().IsRegular() {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return err
		}
		if err := write(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	// A process killed while it wrote path left its temporary file.
	removeStaleTemporaries(path)
	tmp, err := writeTemporary(files, path, write)
	if err != nil {
		return err
	}
	return renameInPlace(files, tmp, path)
}

// ctxWriter fails every write once ctx is done.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// writeError describes the failure err of statement what (as "export m")
// writing path: an interrupt as such, else as failed, after cannot.
func writeError(what, path, cannot string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return interrupted(what + " while " + path + " was written; the unfinished file is removed, and " + filepath.Base(path) + " is as it was")
	}
	return fmt.Errorf("%s: %w", cannot, err)
}

// plotStatement is x as its source writes it, up to its path: plot
// heatmap m.C, plot rmse m vs sim.
func plotStatement(x *compiler.PlotStmt) string {
	written := x.Written
	if written == "" { // a statement not made by the checker
		written = refText(&x.Target)
	}
	st := "plot " + x.Kind + " " + written
	if x.Vs != "" {
		st += " vs " + x.Vs
	}
	return st
}
