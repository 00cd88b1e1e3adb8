package session

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/dsl"
	"github.com/copulang/copulang/inference"
)

// cellView is the bindings completion knows where text ends: the
// session's (the latest view), and those the statements of the cell
// before the one text ends in bind, as far as their text says: a data set
// loaded (the columns of its file's header, less those it drops), derived
// (the columns it keeps, and their labels) or simulated (Y1 … Yp), and a
// model declared (its columns, and whether it is a factor model). Nothing
// is read but a loaded file's header, and nothing runs. Statements that do
// not parse (the model whose braces text ends in) are left out, and then
// those before them; when none parse, it is the session's view.
func (s *Session) cellView(text string) *bindingsView {
	base := s.bindings()
	before := text[:dsl.StatementStart(text)]
	var f *dsl.File
	// Inside a model's braces the statements before the model's parse;
	// a few tries find them.
	for range 8 {
		if strings.TrimSpace(before) == "" {
			return base
		}
		var err error
		if f, err = dsl.Parse("", []byte(before)); err == nil && f != nil {
			break
		}
		f = nil
		before = before[:dsl.StatementStart(before[:len(before)-1])]
	}
	if f == nil {
		return base
	}
	v := &bindingsView{names: slices.Clone(base.names), data: maps.Clone(base.data), models: maps.Clone(base.models)}
	bind := func(name string) {
		if !slices.Contains(v.names, name) {
			v.names = append(v.names, name)
		}
		delete(v.data, name)
		delete(v.models, name)
	}
	for _, st := range f.Stmts {
		switch st := st.(type) {
		case *dsl.DataStmt:
			d := s.cellData(v, st)
			bind(st.Name.Name)
			if d != nil {
				d.Name = st.Name.Name
				v.data[st.Name.Name] = d
			}
		case *dsl.ModelStmt:
			m := cellModel(v, st)
			bind(st.Name.Name)
			if m != nil {
				v.models[st.Name.Name] = m
			}
		}
	}
	return v
}

// cellData is the data set a data statement of the cell binds, as far as
// completion needs it (its columns and their labels), or nil when its text
// does not say.
func (s *Session) cellData(v *bindingsView, st *dsl.DataStmt) *Dataset {
	if call, ok := st.Value.AsCall(); ok {
		switch call.Func.Name {
		case "load":
			return s.cellLoad(call)
		case "simulate":
			return cellSimulate(call)
		}
		return nil
	}
	return cellSelection(v, st.Value)
}

// cellSelection is the data set an expression DATA or DATA[COL, ...]
// selects from a data set of v (its columns, and their labels), or nil.
func cellSelection(v *bindingsView, e *dsl.Expr) *Dataset {
	pf, ok := e.AsPostfix()
	if !ok || pf.Primary.Name == nil || len(pf.Suffixes) > 1 {
		return nil
	}
	src, ok := v.data[pf.Primary.Name.Name]
	if !ok {
		return nil
	}
	whole := len(src.Columns) == len(src.Names) // a bound data set's cells, which predict's given values complete from
	if len(pf.Suffixes) == 0 {
		d := &Dataset{Names: src.Names, Labels: src.Labels, Source: src.Source}
		if whole {
			d.Columns = src.Columns
		}
		return d
	}
	if pf.Suffixes[0].Index == nil {
		return nil
	}
	d := &Dataset{Source: src.Source}
	for _, it := range pf.Suffixes[0].Index.Items {
		j := -1
		if id, ok := it.AsName(); ok {
			j = src.column(id.Name)
		} else if p, ok := it.AsPrimary(); ok && p.Str != nil {
			j = src.column(p.Str.Value)
		} else if ok && p.Number != nil {
			if k, err := strconv.Atoi(p.Number.Text); err == nil && k >= 1 && k <= len(src.Names) {
				j = k - 1
			}
		}
		if j < 0 {
			return nil
		}
		d.Names = append(d.Names, src.Names[j])
		d.Labels = append(d.Labels, src.labelsOf(j))
		if whole {
			d.Columns = append(d.Columns, src.Columns[j])
		}
	}
	return d
}

// cellLoad is a data set with the columns of the file a load call of the
// cell reads, from its header, less those it drops.
func (s *Session) cellLoad(call *dsl.Call) *Dataset {
	var path string
	sep := ','
	var drop []string
	for k, a := range call.Args {
		name := ""
		if a.Name != nil {
			name = a.Name.Name
		} else if k == 0 {
			name = "path"
		}
		switch name {
		case "path", "sep":
			p, ok := a.Value.AsPrimary()
			if !ok || p.Str == nil {
				continue
			}
			if name == "path" {
				path = p.Str.Value
			} else if r := []rune(p.Str.Value); len(r) == 1 {
				sep = r[0]
			}
		case "drop":
			if p, ok := a.Value.AsPrimary(); ok && p.List != nil {
				for _, it := range p.List.Items {
					if id, ok := it.AsName(); ok {
						drop = append(drop, id.Name)
					} else if q, ok := it.AsPrimary(); ok && q.Str != nil {
						drop = append(drop, q.Str.Value)
					}
				}
			}
		}
	}
	if path == "" {
		return nil
	}
	f := s.openLoadFile(loadSite{path: path})
	if f == nil {
		return nil
	}
	defer f.Close()
	names, err := csvHeader(f, sep)
	if err != nil {
		return nil
	}
	return &Dataset{Names: slices.DeleteFunc(names, func(n string) bool { return slices.Contains(drop, n) }), Source: path}
}

// cellSimulate is a data set with the columns Y1 … Yp of a simulate call
// of the cell whose spec gives p as a number.
func cellSimulate(call *dsl.Call) *Dataset {
	if len(call.Args) == 0 {
		return nil
	}
	spec, ok := call.Args[0].Value.AsCall()
	if !ok {
		return nil
	}
	for _, a := range spec.Args {
		if a.Name == nil || a.Name.Name != "p" {
			continue
		}
		p, ok := a.Value.AsPrimary()
		if !ok || p.Number == nil {
			return nil
		}
		n, err := strconv.Atoi(p.Number.Text)
		if err != nil || n < 1 || n > 1000 {
			return nil
		}
		d := &Dataset{}
		for j := 1; j <= n; j++ {
			d.Names = append(d.Names, "Y"+strconv.Itoa(j))
		}
		return d
	}
	return nil
}

// cellModel is the model a model statement of the cell declares, as far
// as completion needs it (its columns, and whether C has a factor model's
// prior), or nil when its data are not known.
func cellModel(v *bindingsView, st *dsl.ModelStmt) *Model {
	var data *Dataset
	var cols []int
	var prior inference.Model = inference.FullCorrelation{}
	dataName := ""
	for _, it := range st.Items {
		switch it := it.(type) {
		case *dsl.Assign:
			if it.Name.Name != "Y" {
				continue
			}
			d2 := cellSelection(v, it.Value)
			if d2 == nil {
				return nil
			}
			pf, _ := it.Value.AsPostfix()
			dataName = pf.Primary.Name.Name
			data = d2
			cols = make([]int, len(d2.Names))
			for j := range cols {
				cols[j] = j
			}
		case *dsl.Tilde:
			if call, ok := it.Dist.AsCall(); ok && it.Name.Name == "C" && call.Func.Name == "FactorModel" {
				prior = inference.FactorModel{}
			}
		}
	}
	if data == nil {
		return nil
	}
	return &Model{Decl: &compiler.DeclareModel{Name: st.Name.Name, Data: dataName, Columns: data.Names, Model: prior}, Data: data, Cols: cols}
}
