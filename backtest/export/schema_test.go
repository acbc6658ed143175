package export_test

import (
	"context"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/mmbot/mmbot/backtest/export"
	"github.com/mmbot/mmbot/backtest/sweep"
)

// sweepKeys are the swept keys of the sample sweep; the docs name them
// `<key>`.
var sweepKeys = []string{"gamma", "risk.max_position"}

// writeSamples writes every kind of file into dir: a recording's three
// files, a run's three and a sweep's, and returns each file's number of
// rows.
func writeSamples(t *testing.T, dir string) map[string]int {
	t.Helper()
	in := filepath.Join(t.TempDir(), "rec.jsonl.gz")
	writeRecording(t, in, handEvents(t))
	n, err := export.Recording(context.Background(), in, dir, export.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := scenario(t)
	if err := export.Results(dir, res, export.Options{}); err != nil {
		t.Fatal(err)
	}
	combos, err := sweep.Grid([]sweep.Param{{Key: sweepKeys[0], Values: []string{"0.05", "0.1"}}, {Key: sweepKeys[1], Values: []string{"100"}}})
	if err != nil {
		t.Fatal(err)
	}
	rows := []sweep.Row{{Combo: combos[0], Headline: accounting.HeadlineOf(res)}, {Combo: combos[1], Err: context.DeadlineExceeded}}
	if err := export.Sweep(filepath.Join(dir, export.SweepFile), sweepKeys, rows, export.Options{}); err != nil {
		t.Fatal(err)
	}
	return map[string]int{
		export.BooksFile: int(n.Levels + n.EmptyBooks), export.TradesFile: int(n.Trades), export.MetaFile: int(n.Metas),
		export.FillsFile: len(res.Fills), export.SeriesFile: len(res.Series), export.TotalsFile: len(res.Totals),
		export.SweepFile: len(rows),
	}
}

// docColumns returns the columns docs/data-format.md gives the file, with
// the sweep's `<key>` row expanded to the sample's keys.
func docColumns(t *testing.T, docs map[string][]column, name string) []column {
	t.Helper()
	var out []column
	for _, c := range docs[name] {
		if c.Name != "<key>" {
			out = append(out, c)
			continue
		}
		for _, k := range sweepKeys {
			out = append(out, column{Name: k, Type: c.Type, Nullable: c.Nullable})
		}
	}
	if len(out) == 0 {
		t.Fatalf("docs/data-format.md has no table for %s", name)
	}
	return out
}

// TestSchemaMatchesDocs: every file's columns, as the footer's schema
// elements state them (name, physical and logical type, null or not), are
// the table of docs/data-format.md, in order, and the docs describe no
// other file.
func TestSchemaMatchesDocs(t *testing.T) {
	dir := t.TempDir()
	counts := writeSamples(t, dir)
	docs := docSchemas(t)
	var files, documented []string
	for name := range counts {
		files = append(files, name)
	}
	for name := range docs {
		documented = append(documented, name)
	}
	sort.Strings(files)
	sort.Strings(documented)
	if !reflect.DeepEqual(files, documented) {
		t.Errorf("files %q, documented %q", files, documented)
	}
	for _, name := range files {
		got := readParquet(t, filepath.Join(dir, name))
		want := docColumns(t, docs, name)
		if !reflect.DeepEqual(got.cols, want) {
			t.Errorf("%s: the file has columns\n%v\nthe docs say\n%v", name, got.cols, want)
		}
		if len(got.rows) != counts[name] || counts[name] == 0 {
			t.Errorf("%s: %d rows, want %d (and some)", name, len(got.rows), counts[name])
		}
	}
}
