package session

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/inference"
)

// contrastSession fits four small models: ma and mc on data a (so they
// share their data), mb on data b, with more draws per chain than ma, and
// md on a with three chains rather than two.
func contrastSession(t *testing.T) *Session {
	t.Helper()
	s := newTestSession(t)
	mustRun(t, s, `data a = simulate(FullCopula(p = 3), n = 150, levels = 3, seed = 1)
data b = simulate(FullCopula(p = 3), n = 150, levels = 3, seed = 2)
model ma { Y = a; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
model mb { Y = b; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
model mc { Y = a; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ(eta = 2) }
model md { Y = a; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
fit ma with gibbs, iter = 40, warmup = 20, chains = 2, seed = 1
fit mb with gibbs, iter = 60, warmup = 20, chains = 2, seed = 2
fit mc with gibbs, iter = 40, warmup = 20, chains = 2, seed = 3
fit md with gibbs, iter = 40, warmup = 20, chains = 3, seed = 4`)
	return s
}

func entryRef(model string, i, j int) *compiler.Ref {
	return &compiler.Ref{Name: model, Member: "C", Index: []int{i, j}}
}

// TestDifferencePairsDraws: the draws of a − b are a's minus b's, chain by
// chain, the last of the longer fit's with the shorter's; within one fit
// the draws pair exactly; and the notes say how far the pairing is a
// posterior.
func TestDifferencePairsDraws(t *testing.T) {
	s := contrastSession(t)
	tests := []struct {
		name         string
		a, b         *compiler.Ref
		skipA, skipB int // draws of each chain left out at its start
		notes        []string
	}{
		{"two fits, the longer cut", entryRef("ma", 0, 1), entryRef("mb", 0, 1), 0, 20, []string{
			"ma has 40 draws per chain and mb 60: the last 40 of mb's are paired with ma's",
			"pairing the draws of ma and mb treats their posteriors as independent"}},
		{"two fits the other way round", entryRef("mb", 1, 2), entryRef("ma", 1, 2), 20, 0, []string{"the last 40 of mb's are paired with ma's"}},
		{"one fit", entryRef("ma", 0, 1), entryRef("ma", 0, 2), 0, 0, nil},
		{"two fits of the same data", entryRef("ma", 0, 2), entryRef("mc", 0, 2), 0, 0, []string{
			"ma and mc fit the same data, so their posteriors are not independent"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := s.contrastParams(tt.a, tt.b)
			if err != nil {
				t.Fatal(err)
			}
			_, pa, _ := s.params(tt.a)
			_, pb, _ := s.params(tt.b)
			if len(d.ps) != 1 || d.chains != 2 || d.draws != 40 {
				t.Fatalf("%d scalars, %d chains × %d draws; want 1, 2 × 40", len(d.ps), d.chains, d.draws)
			}
			for c := range 2 {
				for i := range 40 {
					want := pa[0].draws[c][tt.skipA+i] - pb[0].draws[c][tt.skipB+i]
					if got := d.ps[0].draws[c][i]; got != want {
						t.Fatalf("chain %d draw %d = %v, want %v", c, i, got, want)
					}
				}
			}
			notes := strings.Join(d.notes, "\n")
			if len(tt.notes) == 0 && notes != "" {
				t.Errorf("notes %q, want none", notes)
			}
			for _, w := range tt.notes {
				if !strings.Contains(notes, w) {
					t.Errorf("notes %q lack %q", notes, w)
				}
			}
			if want := pa[0].truth - pb[0].truth; d.ps[0].truth != want {
				t.Errorf("truth %v, want %v", d.ps[0].truth, want)
			}
		})
	}
	if _, err := s.contrastParams(entryRef("ma", 0, 1), entryRef("md", 0, 1)); err == nil || !strings.Contains(err.Error(), "ma has 2 chains with draws and md 3") {
		t.Errorf("chains of other counts: err %v", err)
	}
}

// TestDifferenceSummary: summary A - B shows the posterior of the paired
// differences with the share above 0, and a value A - B its mean, sd,
// interval and share.
func TestDifferenceSummary(t *testing.T) {
	s := contrastSession(t)
	out := mustRun(t, s, "summary ma.C - mb.C")
	plain, _ := out.displays[0]["text/plain"].(string)
	lines := strings.Split(strings.TrimSuffix(plain, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "posterior of ma.C − mb.C, the difference of paired draws: 80 draws in 2 chains") {
		t.Errorf("caption %q", lines[0])
	}
	if !strings.HasSuffix(lines[1], "mcse_sd  P(>0)") {
		t.Errorf("header %q lacks P(>0)", lines[1])
	}
	d, err := s.contrastParams(&compiler.Ref{Name: "ma", Member: "C"}, &compiler.Ref{Name: "mb", Member: "C"})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2+len(d.ps) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), 2+len(d.ps), plain)
	}
	for k, p := range d.ps {
		f := strings.Fields(lines[2+k])
		sum := inference.Summarize(p.draws)
		if f[0] != p.key || f[1] != tableNum("%.3f", sum.Mean) {
			t.Errorf("row %q, want %s with mean %.3f", lines[2+k], p.key, sum.Mean)
		}
		share, _ := strconv.ParseFloat(f[len(f)-1], 64)
		above, all := 0, 0
		for _, c := range p.draws {
			for _, v := range c {
				if v > 0 {
					above++
				}
				all++
			}
		}
		if want := float64(above) / float64(all); math.Abs(share-want) > 0.0005 {
			t.Errorf("%s: P(>0) %v, want %v", p.key, share, want)
		}
	}
	result, err := s.Execute(context.Background(), "ma.C[Y1, Y2] - ma.C[Y1, Y3]", &recorder{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := result["text/plain"].(string); !strings.HasPrefix(got, "ma.C[Y1, Y2] − ma.C[Y1, Y3] = ") || !strings.Contains(got, "P(>0) ") || strings.Contains(got, "note:") {
		t.Errorf("value %q", got)
	}
	figs := &figureFiles{}
	if _, err := s.Execute(context.Background(), "plot hist ma.C[1, 2] - mb.C[1, 2]", figs); err != nil {
		t.Fatal(err)
	}
	if len(figs.titles) != 1 || !strings.Contains(figs.titles[0], `"ma.C[Y1, Y2] − mb.C[Y1, Y2]"`) || figs.names[0] != "hist-ma.C-1-2--mb.C-1-2" {
		t.Errorf("figures %q named %q", figs.titles, figs.names)
	}
}

// TestDifferenceSaysWhetherTheDataShareRows: subgroups derived from one
// data set by conditions that no row meets both share no row, and their
// fits' posteriors are independent; overlapping ones share the rows both
// conditions keep, and the note counts them.
func TestDifferenceSaysWhetherTheDataShareRows(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, `data d = simulate(FullCopula(p = 3), n = 200, levels = 3, seed = 5)
data low = d[Y2, Y3] where Y1 <= 1
data high = d[Y2, Y3] where Y1 >= 2
data mid = d[Y2, Y3] where Y1 >= 1 and Y1 <= 2
model ml { Y = low; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
model mh { Y = high; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
model mm { Y = mid; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
fit ml with gibbs, iter = 20, warmup = 10, chains = 2, seed = 1
fit mh with gibbs, iter = 20, warmup = 10, chains = 2, seed = 2
fit mm with gibbs, iter = 20, warmup = 10, chains = 2, seed = 3`)
	ones := 0 // rows of d with Y1 = 1, the only ones low and mid share
	for _, v := range s.data["d"].Columns[0] {
		if v == 1 {
			ones++
		}
	}
	if ones == 0 {
		t.Fatal("no row of d has Y1 = 1: the test needs some")
	}
	for _, tt := range []struct{ a, b, want string }{
		{"ml", "mh", "the data of ml and mh share no row of " + s.data["d"].Source + ", so their posteriors are independent"},
		{"ml", "mm", "the data of ml and mm share " + plural(ones, "row") + " of " + s.data["d"].Source + ", so their posteriors are not independent"},
	} {
		d, err := s.contrastParams(entryRef(tt.a, 0, 1), entryRef(tt.b, 0, 1))
		if err != nil {
			t.Fatal(err)
		}
		if notes := strings.Join(d.notes, "\n"); !strings.Contains(notes, tt.want) {
			t.Errorf("%s − %s: notes %q, want %q", tt.a, tt.b, notes, tt.want)
		}
	}
}

// TestDifferenceKnowsTheRowsOfAFileLoadedTwice: subgroups of one file
// loaded twice with other options than its separator (drop, na) hold rows
// of the same lines, and the note says whether they share any. It said
// that it assumed they shared none, for subgroups that share every row
// of one as well.
func TestDifferenceKnowsTheRowsOfAFileLoadedTwice(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, `data a = load("gss.csv")
data b = load("gss.csv", drop = [CHILD])
data c = load("gss.csv", na = ["-99"])
data young = a[INC, DEG] where AGE < 40
data old = b[INC, DEG] where AGE >= 40
data every = c[INC, DEG]
model my { Y = young; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
model mo { Y = old; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
model me { Y = every; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
fit my with gibbs, iter = 20, warmup = 10, chains = 1, seed = 1
fit mo with gibbs, iter = 20, warmup = 10, chains = 1, seed = 2
fit me with gibbs, iter = 20, warmup = 10, chains = 1, seed = 3
model ma { Y = a[INC, DEG]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
fit ma with gibbs, iter = 20, warmup = 10, chains = 1, seed = 4`)
	old := s.data["old"].N()
	for _, tt := range []struct{ a, b, want string }{
		{"my", "mo", "the data of my and mo share no row of gss.csv, so their posteriors are independent"},
		{"mo", "me", "the data of mo and me share " + plural(old, "row") + " of gss.csv, so their posteriors are not independent"},
		// Every row, but read with other na: not said to be the same data.
		{"me", "ma", "the data of me and ma share 1002 rows of gss.csv, so their posteriors are not independent"},
	} {
		d, err := s.contrastParams(entryRef(tt.a, 0, 1), entryRef(tt.b, 0, 1))
		if err != nil {
			t.Fatal(err)
		}
		if notes := strings.Join(d.notes, "\n"); !strings.Contains(notes, tt.want) {
			t.Errorf("%s − %s: notes %q, want %q", tt.a, tt.b, notes, tt.want)
		}
	}
}

// TestLoadSep: the separator of load options as loadOptionsText writes
// them, which with the file fixes its rows.
func TestLoadSep(t *testing.T) {
	for _, tt := range []struct{ options, want string }{
		{"", ""},
		{`drop = [id]`, ""},
		{`sep = ";"`, `";"`},
		{`sep = "\t", na = ["-99"], drop = [id]`, `"\t"`},
		{`sep = ",", drop = [id]`, `","`},
	} {
		if got := loadSep(tt.options); got != tt.want {
			t.Errorf("loadSep(%q) = %q, want %q", tt.options, got, tt.want)
		}
	}
}

// TestDifferenceLabelsNameBothSides: a difference's scalars are labelled
// by the entry alone only when it is the same entry of two fits (the
// caption or title names the fits); within one fit an entry whose label
// is the other side's too (C[Y1, Y2] in ma.C[Y1] - ma.C[Y2], the same
// correlation; R2 of two regressions) names both sides. The pairs and
// intervals plots of ma.C[Y1] - ma.C[Y2] labelled the first C[Y1,Y2], as
// if that correlation were the difference's 0.
func TestDifferenceLabelsNameBothSides(t *testing.T) {
	s := contrastSession(t)
	row := func(name string, i int) *compiler.Ref { return &compiler.Ref{Name: name, Member: "C", Index: []int{i}} }
	regress := func(name string, x int) *compiler.Ref {
		return &compiler.Ref{Name: name, Member: "regress", Regress: &compiler.Regression{Response: 0, Predictors: []int{x}}}
	}
	for _, tt := range []struct {
		name   string
		a, b   *compiler.Ref
		labels []string
	}{
		{"rows of one fit", row("ma", 0), row("ma", 1), []string{"C[Y1, Y2] − C[Y1, Y2]", "C[Y1, Y3] − C[Y2, Y3]"}},
		{"regressions of one fit", regress("ma", 1), regress("ma", 2), []string{"beta[Y2] − beta[Y3]", "R2 − R2"}},
		{"the same row of two fits", row("ma", 0), row("mb", 0), []string{"C[Y1, Y2]", "C[Y1, Y3]"}},
	} {
		d, err := s.contrastParams(tt.a, tt.b)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var labels []string
		for _, p := range d.ps {
			labels = append(labels, p.label)
		}
		if strings.Join(labels, "; ") != strings.Join(tt.labels, "; ") {
			t.Errorf("%s: labels %q, want %q", tt.name, labels, tt.labels)
		}
	}
}

// TestDifferencePairsTheSameScalarsOfTwoFits: across two fits whose models
// order their columns differently, a difference pairs each scalar with the
// same one of the other fit (C[Y1, Y3] with C[Y1, Y3]), not the one in its
// place: summary ma.C - mb.C paired C[Y1, Y3] of one with C[Y3, Y2] of
// the other, and said nothing. Scalars of other columns still pair by
// position.
func TestDifferencePairsTheSameScalarsOfTwoFits(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, `data d = simulate(FullCopula(p = 4), n = 200, levels = 3, seed = 5)
data a = d[Y1, Y2, Y3]
data b = d[Y3, Y1, Y2]
data c = d[Y4, Y1, Y2]
model ma { Y = a; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
model mb { Y = b; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
model mc { Y = c; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
fit ma with gibbs, iter = 20, warmup = 10, chains = 2, seed = 1
fit mb with gibbs, iter = 20, warmup = 10, chains = 2, seed = 2
fit mc with gibbs, iter = 20, warmup = 10, chains = 2, seed = 3`)
	regress := func(name string, y int, x ...int) *compiler.Ref {
		return &compiler.Ref{Name: name, Member: "regress", Regress: &compiler.Regression{Response: y, Predictors: x}}
	}
	for _, tt := range []struct {
		name string
		a, b *compiler.Ref
		// pairs: for each scalar of a, the index of b's it pairs with;
		// keys, the difference's.
		pairs []int
		keys  []string
	}{
		// ma: Y1 Y2 Y3 (C[Y1,Y2], C[Y1,Y3], C[Y2,Y3]); mb: Y3 Y1 Y2
		// (C[Y3,Y1], C[Y3,Y2], C[Y1,Y2]).
		{"whole C", &compiler.Ref{Name: "ma", Member: "C"}, &compiler.Ref{Name: "mb", Member: "C"}, []int{2, 0, 1},
			[]string{"C[Y1,Y2]", "C[Y1,Y3]", "C[Y2,Y3]"}},
		{"partial", &compiler.Ref{Name: "ma", Member: "partial"}, &compiler.Ref{Name: "mb", Member: "partial"}, []int{2, 0, 1},
			[]string{"partial[Y1,Y2]", "partial[Y1,Y3]", "partial[Y2,Y3]"}},
		// ma.regress(Y1 ~ Y2 + Y3) and mb.regress(Y1 ~ Y3 + Y2): beta[Y2],
		// beta[Y3], R2 against beta[Y3], beta[Y2], R2.
		{"regress", regress("ma", 0, 1, 2), regress("mb", 1, 0, 2), []int{1, 0, 2}, []string{"beta[Y2]", "beta[Y3]", "R2"}},
		// mc: Y4 Y1 Y2, other columns: by position, named both.
		{"other columns", &compiler.Ref{Name: "ma", Member: "C"}, &compiler.Ref{Name: "mc", Member: "C"}, []int{0, 1, 2},
			[]string{"C[Y1,Y2]-C[Y4,Y1]", "C[Y1,Y3]-C[Y4,Y2]", "C[Y2,Y3]-C[Y1,Y2]"}},
	} {
		d, err := s.contrastParams(tt.a, tt.b)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		_, pa, _ := s.params(tt.a)
		_, pb, _ := s.params(tt.b)
		for k, p := range d.ps {
			if p.key != tt.keys[k] {
				t.Errorf("%s: scalar %d is %s, want %s", tt.name, k, p.key, tt.keys[k])
			}
			j := tt.pairs[k]
			if want := pa[k].draws[1][3] - pb[j].draws[1][3]; p.draws[1][3] != want {
				t.Errorf("%s: %s's draw %v, want %s's minus %s's, %v", tt.name, p.key, p.draws[1][3], pa[k].key, pb[j].key, want)
			}
		}
	}
}

// TestDifferenceOfTheSameScalarSaysSo: a difference whose two sides are
// the same scalar of one fit (ma.C[Y1, Y2] - ma.C[Y2, Y1], C being
// symmetric; ma.C - ma.C; the first scalar of ma.C[Y1] - ma.C[Y2]) is 0
// in every draw, which the summary and the value said nothing of: a note
// says which are, and why.
func TestDifferenceOfTheSameScalarSaysSo(t *testing.T) {
	s := contrastSession(t)
	for _, tt := range []struct{ code, note string }{
		{"summary ma.C[Y1, Y2] - ma.C[Y2, Y1]", "ma.C[Y1,Y2] − ma.C[Y2,Y1] is 0 in every draw: both sides select the same scalar of ma's fit (C is symmetric: C[x, y] is C[y, x]), so the difference says nothing"},
		{"ma.C[Y1, Y2] - ma.C[Y2, Y1]", "note: ma.C[Y1,Y2] − ma.C[Y2,Y1] is 0 in every draw: both sides select the same scalar of ma's fit"},
		{"summary ma.C - ma.C", "every scalar of ma.C − ma.C is 0 in every draw: both sides select the same scalars of ma's fit (C is symmetric: C[x, y] is C[y, x]), so the difference says nothing"},
		{"summary ma.C[Y1] - ma.C[Y2]", "C[Y1, Y2] − C[Y1, Y2] is 0 in every draw: both sides select the same scalar of ma's fit (C is symmetric"},
		{"summary ma.partial[Y1, Y3] - ma.partial[Y3, Y1]", "is 0 in every draw: both sides select the same scalar of ma's fit (partial is symmetric: partial[x, y] is partial[y, x])"},
	} {
		r, err := s.Execute(context.Background(), tt.code, &recorder{})
		out := mustRun(t, s, tt.code).text()
		if result, _ := r["text/plain"].(string); err == nil {
			out += result
		}
		if !strings.Contains(out, tt.note) {
			t.Errorf("%s says:\n%s\nwant the note:\n%s", tt.code, out, tt.note)
		}
	}
	for _, code := range []string{"summary ma.C[Y1, Y2] - ma.C[Y1, Y3]", "summary ma.C - mb.C"} {
		if text := mustRun(t, s, code).text(); strings.Contains(text, "0 in every draw") {
			t.Errorf("%s says:\n%s\nwhich is not 0 in every draw", code, text)
		}
	}
}

// TestSwappedEntryIsNamedAsWritten: an entry written in the other order
// than the matrix's (ma.C[Y2, Y1], C[Y1, Y2] being stored) is named as
// written in the summary's row and the value line, of a difference and
// alone: they named C[Y1, Y2] under a caption of ma.C[Y2,Y1], so the
// table and the line did not name what was asked.
func TestSwappedEntryIsNamedAsWritten(t *testing.T) {
	s := contrastSession(t)
	for _, tt := range []struct {
		code string
		want []string
	}{
		{"summary ma.C[Y3, Y1] - mb.C[Y3, Y1]", []string{"\nC[Y3,Y1] "}},
		{"ma.C[Y3, Y1] - mb.C[Y3, Y1]", []string{"ma.C[Y3, Y1] − mb.C[Y3, Y1] = "}},
		{"print ma.C[Y3, Y1] - mb.C[Y3, Y1]", []string{"ma.C[Y3, Y1] − mb.C[Y3, Y1] = "}},
		{"summary ma.C[Y2, Y1] - ma.C[Y1, Y2]", []string{"\nC[Y2,Y1]-C[Y1,Y2] "}},
		{"summary ma.partial[Y3, Y2] - mb.partial[Y3, Y2]", []string{"\npartial[Y3,Y2] "}},
		{"summary ma.C[Y3, Y1]", []string{"\nC[Y3,Y1] "}},
		{"ma.C[Y3, Y1]", []string{"C[Y3, Y1] = "}},
		{"ma.partial[Y3, Y1]", []string{"partial[Y3, Y1] = "}},
		// Rows and whole matrices keep the matrix's order.
		{"summary ma.C[Y3]", []string{"\nC[Y1,Y3] ", "\nC[Y2,Y3] "}},
	} {
		r, err := s.Execute(context.Background(), tt.code, &recorder{})
		out := mustRun(t, s, tt.code).text()
		if result, _ := r["text/plain"].(string); err == nil {
			out += result
		}
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s says:\n%s\nwant %q", tt.code, out, w)
			}
		}
	}
}

// TestDifferencePlotsCarryTheNotes: a plot of a difference says what its
// summary's caption says of it: that two fits' posteriors are taken to be
// independent (or are not: the same rows), that a scalar is 0 in every
// draw, that the longer fit's last draws were paired. The plots said
// nothing of it, and a figure of zeros read as a finding.
func TestDifferencePlotsCarryTheNotes(t *testing.T) {
	s := contrastSession(t)
	for _, tt := range []struct{ code, note string }{
		{"plot intervals ma.C - mb.C", "note: pairing the draws of ma and mb treats their posteriors as independent"},
		{"plot intervals ma.C - mb.C", "note: ma has 40 draws per chain and mb 60: the last 40 of mb's are paired with ma's"},
		{"plot hist ma.C[Y1, Y2] - mc.C[Y1, Y2]", "note: ma and mc fit the same data, so their posteriors are not independent"},
		{"plot hist ma.C[Y1, Y2] - ma.C[Y2, Y1]", "note: ma.C[Y1,Y2] − ma.C[Y2,Y1] is 0 in every draw: both sides select the same scalar of ma's fit"},
		{"plot trace ma.C[Y1, Y2] - ma.C[Y2, Y1]", "is 0 in every draw"},
		{"plot pairs ma.C - ma.C", "every scalar of ma.C − ma.C is 0 in every draw"},
		{"plot graph ma.partial - mb.partial", "note: pairing the draws of ma and mb treats their posteriors as independent"},
	} {
		if out := mustRun(t, s, tt.code).text(); !strings.Contains(out, tt.note) {
			t.Errorf("%s says:\n%s\nwant the note:\n%s", tt.code, out, tt.note)
		}
	}
}
