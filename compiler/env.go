package compiler

import "github.com/copulang/copulang/inference"

// Env is the compiler's view of the session's bindings.
type Env interface {
	// Lookup returns the binding of name, if any.
	Lookup(name string) (Binding, bool)
	// Names returns every bound name.
	Names() []string
}

// Files is implemented by an Env that lets Check look at the files a
// script reads and writes, so that a missing file, a column name that is
// not in a file's header or a directory that cannot be written is reported
// before the script's first statement runs (and not after a long fit).
// Without it, Check leaves data loaded in the same file unresolved (see
// Stmt.Partial) and does not look at paths.
type Files interface {
	// ReadData reads the data file of a load statement (x.Path, with its
	// separator, missing-value markers and orders) and describes it. Its
	// error says what is wrong with the file.
	ReadData(x *LoadData) (*DataInfo, error)
	// Writable returns why a file cannot be written at path, or nil.
	Writable(path string) error
	// FitFile returns why path can neither hold a fit to read (there is
	// no fit file there: none, or a file of something else, which a fit
	// must not overwrite) nor take one written (as Writable), or nil.
	FitFile(path string) error
}

// PathResolver is implemented by a Files that can tell which file a path
// names, so that two spellings of one (data/x.csv, ./data/x.csv, its
// absolute path, a link to it) are known as one file. Without it, paths
// are compared cleaned (filepath.Clean).
type PathResolver interface {
	// Resolve returns the file path names, as one string for every
	// spelling of it.
	Resolve(path string) string
}

// Binding is what a name is bound to: *DataInfo or *ModelInfo.
type Binding interface {
	// Kind is "data" or "model".
	Kind() string
}

// DataInfo describes a data set: its size and columns.
type DataInfo struct {
	Name    string
	N       int // rows
	Columns []ColumnInfo
	// HasTruth is true for simulated data, whose true C is known;
	// TruthK is its number of factors (0 for a full correlation).
	HasTruth bool
	TruthK   int
	// TruthDropped says, for data derived from simulated data by a
	// condition on their rows, why they have no truth ("" otherwise).
	TruthDropped string
}

// ColumnInfo describes one column of a data set.
type ColumnInfo struct {
	Name string
	// Levels is the number of distinct observed values; Missing the number
	// of missing cells.
	Levels, Missing int
	// Singletons is the number of observed cells whose value occurs
	// nowhere else in the column (all of a continuous column's): compare
	// never holds them out, since a refit could not predict their value.
	Singletons int
	// Text is true for a column of text labels (ordered by load's order);
	// Labels are then its labels, lowest first.
	Text   bool
	Labels []string
	// Rarer is, for a binary column (Levels 2), the number of observed
	// cells of its rarer level; 0 for the other columns.
	Rarer int
	// Values are a numeric column's distinct observed values, ascending,
	// when it has at most MaxKnownValues of them; nil otherwise.
	Values []float64
	// ValuesOf, for a numeric column of more distinct values than that,
	// computes them, ascending, when called (nil otherwise): a description
	// of every data set would otherwise hold a copy of every continuous
	// column, while only predict's given values need them, and then of
	// one column.
	ValuesOf func() []float64
}

// MaxKnownValues is the most distinct values of a column that ColumnInfo
// lists.
const MaxKnownValues = 1000

// ModelInfo describes a declared model.
type ModelInfo struct {
	Name    string
	Data    string   // the data set it is declared on
	Columns []string // its columns, in order
	Model   inference.Model
	// Fitted is true once the model has been fitted, with Method.
	Fitted bool
	Method inference.Method
	K      int // factors of a factor model, 0 otherwise
	// Values are, by column, the observed values of the data the model was
	// declared on (ColumnInfo.Values; nil where not known): those predict
	// may be given. ValuesOf computes them where Values are nil for being
	// too many (ColumnInfo.ValuesOf; nil where not known).
	Values   [][]float64
	ValuesOf []func() []float64
}

// Kind returns "data".
func (*DataInfo) Kind() string { return "data" }

// Kind returns "model".
func (*ModelInfo) Kind() string { return "model" }

// column returns the index of the named column, or -1.
func (d *DataInfo) column(name string) int {
	for j, c := range d.Columns {
		if c.Name == name {
			return j
		}
	}
	return -1
}

func (d *DataInfo) columnNames() []string {
	out := make([]string, len(d.Columns))
	for j, c := range d.Columns {
		out[j] = c.Name
	}
	return out
}
