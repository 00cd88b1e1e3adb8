package session

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/inference"
)

// WriteDraws writes the post-warm-up draws of a fit as CSV in the stable
// CmdStan-style layout of language.md: a header `chain,draw,` followed by
// one column per scalar — `C.i.j` for i < j (1-based, in the model's column
// order) and, for factor models, `Lambda.i.h` (as the Result holds them; the
// session aligns them across draws) — then one row per kept draw, chains
// numbered from 1 and draws from 1 within each chain. ArviZ reads it with
// pandas + az.from_dict, R's posterior with as_draws_df(read.csv(...));
// WriteColumns writes the names that go with the indices.
func WriteDraws(w io.Writer, r *inference.Result) error {
	bw := bufio.NewWriter(w)
	p, k := r.P, r.K
	bw.WriteString("chain,draw")
	for i := 0; i < p; i++ {
		for j := i + 1; j < p; j++ {
			fmt.Fprintf(bw, ",C.%d.%d", i+1, j+1)
		}
	}
	hasLambda := len(r.Lambda) > 0 && k > 0
	if hasLambda {
		for i := 0; i < p; i++ {
			for h := 0; h < k; h++ {
				fmt.Fprintf(bw, ",Lambda.%d.%d", i+1, h+1)
			}
		}
	}
	bw.WriteByte('\n')
	var num []byte
	for c, draws := range r.C {
		for d, cd := range draws {
			num = strconv.AppendInt(num[:0], int64(c+1), 10)
			num = append(num, ',')
			num = strconv.AppendInt(num, int64(d+1), 10)
			bw.Write(num)
			for i := 0; i < p; i++ {
				for j := i + 1; j < p; j++ {
					bw.WriteByte(',')
					bw.Write(strconv.AppendFloat(num[:0], cd[i*p+j], 'g', -1, 64))
				}
			}
			if hasLambda {
				for _, v := range r.Lambda[c][d] {
					bw.WriteByte(',')
					bw.Write(strconv.AppendFloat(num[:0], v, 'g', -1, 64))
				}
			}
			if err := bw.WriteByte('\n'); err != nil {
				return err // the file cannot be written, or an interrupt (writeFile)
			}
		}
	}
	return bw.Flush()
}

// writeParamDraws writes the draws of the scalars ps (a part of a model:
// m.partial, m.regress(Y ~ X), ...) in WriteDraws' layout: a header
// `chain,draw,` then each scalar's CmdStan-style name (partial.1.2,
// beta.3, R2), one row per kept draw.
func writeParamDraws(w io.Writer, ps []param) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("chain,draw")
	for _, p := range ps {
		bw.WriteString("," + p.name)
	}
	bw.WriteByte('\n')
	if len(ps) == 0 {
		return bw.Flush()
	}
	var num []byte
	for c, chain := range ps[0].draws {
		for d := range chain {
			num = strconv.AppendInt(num[:0], int64(c+1), 10)
			num = append(num, ',')
			num = strconv.AppendInt(num, int64(d+1), 10)
			bw.Write(num)
			for _, p := range ps {
				bw.WriteByte(',')
				bw.Write(strconv.AppendFloat(num[:0], p.draws[c][d], 'g', -1, 64))
			}
			if err := bw.WriteByte('\n'); err != nil {
				return err // the file cannot be written, or an interrupt (writeFile)
			}
		}
	}
	return bw.Flush()
}

// writeParamColumns writes the column sidecar of writeParamDraws, in
// WriteColumns' layout: param (the CmdStan-style name), label (as
// summaries name it), row and column (param.row and param.column).
func writeParamColumns(w io.Writer, ps []param) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"param", "label", "row", "column"})
	for _, p := range ps {
		cw.Write([]string{p.name, p.key, p.row, p.column})
	}
	cw.Flush()
	return cw.Error()
}

// ColumnsPath is the path of the column sidecar of an export to path:
// draws.csv → draws.columns.csv.
func ColumnsPath(path string) string {
	if base, ok := strings.CutSuffix(path, ".csv"); ok {
		return base + ".columns.csv"
	}
	return path + ".columns.csv"
}

// WriteColumns writes the sidecar of WriteDraws: one CSV row per exported
// column after chain and draw, in the same order, with the header
//
//	param,label,row,column
//
// param is the CmdStan name (C.1.2), label the name summaries show
// (C[income,degree]), row the name of the model column i, and column the
// name of the model column j for C or the factor number h for Lambda.
func WriteColumns(w io.Writer, r *inference.Result) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"param", "label", "row", "column"})
	names := r.Names
	for i := 0; i < r.P; i++ {
		for j := i + 1; j < r.P; j++ {
			cw.Write([]string{fmt.Sprintf("C.%d.%d", i+1, j+1), correlationKey(names, i, j), names[i], names[j]})
		}
	}
	if len(r.Lambda) > 0 && r.K > 0 {
		for i := 0; i < r.P; i++ {
			for h := 0; h < r.K; h++ {
				cw.Write([]string{fmt.Sprintf("Lambda.%d.%d", i+1, h+1), loadingKey(names, i, h), names[i], strconv.Itoa(h + 1)})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// ProvenancePath is the path of the provenance sidecar of an export to
// path: draws.csv → draws.provenance.csv.
func ProvenancePath(path string) string {
	if base, ok := strings.CutSuffix(path, ".csv"); ok {
		return base + ".provenance.csv"
	}
	return path + ".provenance.csv"
}

// provenance says what made the fit of model m: the copulang that sampled it, the
// model, its data (with the SHA-256 of the file they were loaded from) and
// the fit's settings and sampler, as key and value. Nothing in it depends
// on when or where the fit ran, so that running an analysis again writes
// the same file, as it writes the same draws; and a fit read from its file
// has the provenance of the fit that wrote it, whose draws it has.
func (s *Session) provenance(name string, m *Model) [][2]string {
	r, x := m.Fit, m.FitStmt
	rows := [][2]string{
		{"copulang", versionOrUnknown(m.sampledBy)},
		{"model", name},
		{"model_kind", modelKind(m.Decl.Model)},
		{"columns", strings.Join(columnTexts(m.Names()), ", ")},
		{"data", m.Data.Name},
		{"data_source", m.Data.Source},
	}
	if m.Data.LoadOptions != "" {
		rows = append(rows, [2]string{"data_options", m.Data.LoadOptions})
	}
	if m.Data.SHA256 != "" {
		rows = append(rows, [2]string{"data_sha256", m.Data.SHA256})
	}
	if len(m.Data.Derivation) > 0 {
		rows = append(rows, [2]string{"data_derived", strings.Join(m.Data.Derivation, "; then ")})
	}
	rows = append(rows,
		[2]string{"data_rows", strconv.Itoa(m.Data.N())},
		[2]string{"method", x.Method},
		[2]string{"sampler", fitRan(m.Plan, r)},
	)
	if m.Plan.Method == inference.HMC || m.Plan.Method == inference.Interweave || x.Method == "auto" {
		rows = append(rows, [2]string{"T", strconv.FormatFloat(x.TravelTime, 'g', -1, 64)})
	}
	rows = append(rows,
		[2]string{"chains", strconv.Itoa(len(r.C))},
		[2]string{"warmup", strconv.Itoa(r.Warmup)},
		[2]string{"iter", strconv.Itoa(ranIter(r))},
		[2]string{"thin", strconv.Itoa(r.Thin)},
		[2]string{"seed", strconv.FormatUint(r.Seed, 10)},
	)
	if x.ESS > 0 {
		rows = append(rows, [2]string{"ess", strconv.Itoa(x.ESS)})
	}
	// An extended fit says so: the draws of `iter` iterations came from
	// the fit statement and then each extension, in order, continuing
	// every chain's random stream from where it stopped (the seed's).
	if len(m.extensions) > 0 {
		rows = append(rows, [2]string{"extensions", strconv.Itoa(len(m.extensions))})
		for i, e := range m.extensions {
			key := fmt.Sprintf("extension_%d", i+1)
			rows = append(rows, [2]string{key, e.statement}, [2]string{key + "_iterations", fmt.Sprintf("%d-%d", e.from+1, e.to)})
		}
	}
	rows = append(rows, [2]string{"interrupted", strconv.FormatBool(r.Interrupted)})
	if m.kept != nil {
		rows = append(rows, [2]string{"fit_file", m.kept.shown})
	}
	return rows
}

// writeProvenance writes the provenance of model name's fit m beside the
// file at path that statement wrote from it, with the rows extra after the
// fit's, and returns its path.
func (s *Session) writeProvenance(ctx context.Context, name string, m *Model, path, statement string, extra ...[2]string) (string, error) {
	provenance := ProvenancePath(path)
	rows := append(s.provenance(name, m), extra...)
	if err := s.writeFile(ctx, provenance, func(w io.Writer) error { return WriteProvenance(w, rows) }); err != nil {
		return "", writeError(statement, provenance, "cannot write what made "+path, err)
	}
	return provenance, nil
}

// WriteProvenance writes rows as CSV with the header key,value.
func WriteProvenance(w io.Writer, rows [][2]string) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"key", "value"})
	for _, r := range rows {
		cw.Write(r[:])
	}
	cw.Flush()
	return cw.Error()
}

// exportData writes the cells of data set x.Data as CSV (WriteData), and
// beside it what made them (dataProvenance): simulated data, which a class
// or a colleague may want to read with other tools, existed only in the
// session.
func (s *Session) exportData(ctx context.Context, x *compiler.Export, out Output) error {
	d, ok := s.data[x.Data]
	if !ok {
		return fmt.Errorf("unknown data set %s", x.Data)
	}
	statement := "export " + x.Data
	path := s.path(x.Path)
	if stream := notAFile(path); stream != "" {
		if err := s.writeFile(ctx, path, func(w io.Writer) error { return WriteData(w, d) }); err != nil {
			return writeError(statement, path, "cannot export", err)
		}
		out.Stream("stdout", fmt.Sprintf("wrote %s of %s to %s%s, %s, so without the sidecar that says where they came from\n", plural(d.N(), "row"), x.Data, path, sourceRowNote(d), stream))
		return nil
	}
	provenance := ProvenancePath(x.Path)
	if err := s.overwritableAll(x.Path, provenance); err != nil {
		return fmt.Errorf("cannot export %s: %w", x.Data, err)
	}
	if err := s.writeFile(ctx, path, func(w io.Writer) error { return WriteData(w, d) }); err != nil {
		return writeError(statement, path, "cannot export", err)
	}
	provenance = ProvenancePath(path)
	if err := s.writeFile(ctx, provenance, func(w io.Writer) error { return WriteProvenance(w, s.dataProvenance(d)) }); err != nil {
		return writeError(statement, provenance, "cannot write what made "+path, err)
	}
	out.Stream("stdout", fmt.Sprintf("wrote %s of %s to %s%s, and where they came from to %s\n",
		plural(d.N(), "row"), x.Data, path, sourceRowNote(d), provenance))
	return nil
}

// sourceRowNote says what the first column of an export of derived data
// d is (WriteData), "" for other data.
func sourceRowNote(d *Dataset) string {
	if d.SourceRows == nil {
		return ""
	}
	name := SourceRowName(d.Names)
	return fmt.Sprintf(" (first %s: the row of %s each came from; load(..., drop = [%s]) reads them back without it)", name, d.Source, name)
}

// notAFile says why path, which exists and is not a regular file (a
// device such as /dev/stdout, a named pipe), has no sidecars beside it:
// "which is not a file"; "" when path is a regular file or is not there.
func notAFile(path string) string {
	info, err := os.Stat(path)
	if err != nil || info.Mode().IsRegular() {
		return ""
	}
	if info.IsDir() {
		return "" // refused when written, as before
	}
	return "which is not a file"
}

// WriteData writes a data set as CSV: a header of its column names, then
// one row per row of the data, each cell as the data hold it (a number
// with every digit it has, the label of a text column) and NA where it is
// missing. load reads the file back to the same values (a text column
// needs its order again). Data derived from other data begin each row with
// its source row (SourceRowName: the row of the file or simulation it came
// from, 1-based), by which it joins back to the source; load(..., drop =
// [source_row]) reads the data back without it.
func WriteData(w io.Writer, d *Dataset) error {
	cw := csv.NewWriter(w)
	lead := 0
	if d.SourceRows != nil {
		lead = 1
	}
	head := d.Names
	if lead == 1 {
		head = append([]string{SourceRowName(d.Names)}, d.Names...)
	}
	cw.Write(head)
	row := make([]string, lead+len(d.Columns))
	var num []byte
	for i := range d.N() {
		if lead == 1 {
			row[0] = strconv.Itoa(d.SourceRows[i] + 1)
		}
		for j, col := range d.Columns {
			v := col[i]
			switch {
			case math.IsNaN(v):
				row[lead+j] = "NA"
			case j < len(d.Labels) && d.Labels[j] != nil && v >= 1 && int(v) <= len(d.Labels[j]):
				row[lead+j] = d.Labels[j][int(v)-1]
			default:
				num = strconv.AppendFloat(num[:0], v, 'g', -1, 64)
				row[lead+j] = string(num)
			}
		}
		if err := cw.Write(row); err != nil {
			return err // the file cannot be written, or an interrupt (writeFile)
		}
	}
	cw.Flush()
	return cw.Error()
}

// SourceRowName is the name of the column of an export of derived data
// whose columns are names that holds each row's source row: source_row, or
// source_row_ (and so on) when a column of the data is named so.
func SourceRowName(names []string) string {
	name := "source_row"
	for slices.Contains(names, name) {
		name += "_"
	}
	return name
}

// dataProvenance says where data set d came from, as key and value: the
// copulang that wrote the file, the data's name, its source (the path as
// load names it, or the simulate call), the load call's options and the
// SHA-256 of the file read (loaded data), and its rows and columns.
func (s *Session) dataProvenance(d *Dataset) [][2]string {
	rows := [][2]string{
		{"copulang", versionOrUnknown(s.opts.Version)},
		{"data", d.Name},
		{"data_source", d.Source},
	}
	if d.LoadOptions != "" {
		rows = append(rows, [2]string{"data_options", d.LoadOptions})
	}
	if d.SHA256 != "" {
		rows = append(rows, [2]string{"data_sha256", d.SHA256})
	}
	if len(d.Derivation) > 0 {
		rows = append(rows, [2]string{"data_derived", strings.Join(d.Derivation, "; then ")})
	}
	return append(rows,
		[2]string{"data_rows", strconv.Itoa(d.N())},
		[2]string{"columns", strings.Join(columnTexts(d.Names), ", ")})
}
