package export_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
)

// duckdbEnv names the node_modules directory that holds the npm package
// @duckdb/node-api (.ci/run installs it into a throwaway directory and sets
// the variable; by hand: npm install --prefix DIR @duckdb/node-api, then
// DUCKDB_NODE_MODULES=DIR/node_modules).
const duckdbEnv = "DUCKDB_NODE_MODULES"

// duckdbScript reads a JSON job from argv[2] ({files: [path], queries:
// {label: sql}}) and prints, as JSON, DuckDB's version, each file's
// parquet_schema, DESCRIBE and row count, and each query's rows.
const duckdbScript = `
const { DuckDBInstance } = require('@duckdb/node-api');
(async () => {
  const job = JSON.parse(process.argv[2]);
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  const q = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJson();
  const lit = (p) => "'" + p.replaceAll("'", "''") + "'";
  const out = { version: (await q('select version() as v'))[0].v, files: {}, queries: {} };
  for (const f of job.files) {
    out.files[f] = {
      schema: await q('select name, type, type_length, repetition_type, converted_type, scale, precision, logical_type from parquet_schema(' + lit(f) + ') where num_children is null or num_children = 0'),
      describe: await q('describe select * from ' + lit(f)),
      rows: Number((await q('select count(*) as n from ' + lit(f)))[0].n),
    };
  }
  for (const [label, sql] of Object.entries(job.queries)) out.queries[label] = await q(sql);
  console.log(JSON.stringify(out));
})().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
`

type duckSchemaRow struct {
	Name          string  `json:"name"`
	Type          string  `json:"type"`
	TypeLength    *string `json:"type_length"`
	Repetition    string  `json:"repetition_type"`
	ConvertedType *string `json:"converted_type"`
	Scale         *string `json:"scale"`
	Precision     *string `json:"precision"`
	LogicalType   *string `json:"logical_type"`
}

type duckOutput struct {
	Version string `json:"version"`
	Files   map[string]struct {
		Schema   []duckSchemaRow `json:"schema"`
		Describe []struct {
			Name string `json:"column_name"`
			Type string `json:"column_type"`
		} `json:"describe"`
		Rows int `json:"rows"`
	} `json:"files"`
	Queries map[string][]map[string]any `json:"queries"`
}

var duckUnit = regexp.MustCompile(`(MILLIS|MICROS|NANOS)=[A-Za-z]+\(\)`)

// docType writes DuckDB's view of a column's Parquet type as the docs do.
func (c duckSchemaRow) docType() string {
	s := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	phys := c.Type
	if phys == "FIXED_LEN_BYTE_ARRAY" {
		phys += "(" + s(c.TypeLength) + ")"
	}
	lt := s(c.LogicalType)
	switch {
	case s(c.ConvertedType) == "DECIMAL":
		return fmt.Sprintf("%s DECIMAL(%s,%s)", phys, s(c.Precision), s(c.Scale))
	case strings.HasPrefix(lt, "TimestampType("):
		unit := "?"
		if m := duckUnit.FindStringSubmatch(lt); m != nil {
			unit = m[1]
		}
		if strings.Contains(lt, "isAdjustedToUTC=1") {
			unit += ",UTC"
		}
		return fmt.Sprintf("%s TIMESTAMP(%s)", phys, unit)
	case strings.HasPrefix(lt, "StringType(") || s(c.ConvertedType) == "UTF8":
		return phys + " STRING"
	}
	return phys
}

// TestDuckDBReadsTheFiles checks the files with an independent reader:
// DuckDB (through its npm package, run by node) sees every file with the
// columns, Parquet types and nullability of docs/data-format.md and the
// row counts written, and sums the exact decimals to the values Go
// computes. It needs node and the npm package @duckdb/node-api (see
// duckdbEnv); without them it is skipped and says why.
func TestDuckDBReadsTheFiles(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH: the DuckDB check of the Parquet files is skipped (Debian: apt-get install nodejs npm; .ci/run installs the package)")
	}
	modules := os.Getenv(duckdbEnv)
	if modules == "" {
		t.Skipf("%s is not set: the DuckDB check of the Parquet files is skipped (npm install --prefix DIR @duckdb/node-api, then %s=DIR/node_modules; .ci/run does it)", duckdbEnv, duckdbEnv)
	}
	if _, err := os.Stat(filepath.Join(modules, "@duckdb", "node-api")); err != nil {
		t.Fatalf("%s=%s has no @duckdb/node-api: %v", duckdbEnv, modules, err)
	}

	dir := t.TempDir()
	counts := writeSamples(t, dir)
	docs := docSchemas(t)
	p := func(name string) string { return filepath.Join(dir, name) }
	lit := func(name string) string { return "'" + strings.ReplaceAll(p(name), "'", "''") + "'" }

	// What the exact sums should be, from the sources.
	var notional, bookSize decimal.Decimal
	for _, e := range handEvents(t) {
		switch e.Kind {
		case recording.KindTrade:
			notional = notional.Add(e.Trade.Price.Mul(e.Trade.Size))
		case recording.KindBook:
			for _, l := range append(append([]exchange.PriceLevel(nil), e.Book.Bids...), e.Book.Asks...) {
				bookSize = bookSize.Add(l.Size)
			}
		}
	}
	res := scenario(t)
	var fees, cash decimal.Decimal
	for _, f := range res.Fills {
		fees = fees.Add(f.Fee)
	}
	for _, s := range res.Series {
		cash = cash.Add(s.Cash)
	}
	queries := map[string]string{
		"trades_notional": "select cast(sum(price * size) as varchar) as v from " + lit("trades.parquet"),
		"books_size":      "select cast(sum(size) as varchar) as v from " + lit("books.parquet"),
		"books_empty":     "select cast(count(*) as varchar) as v from " + lit("books.parquet") + " where side is null",
		"fills_fee":       "select cast(sum(fee) as varchar) as v from " + lit("fills.parquet"),
		"series_cash":     "select cast(sum(cash) as varchar) as v from " + lit("series.parquet"),
		"meta_marketwide": "select cast(count(*) as varchar) as v from " + lit("meta.parquet") + " where token is null",
		"recv_max":        "select cast(max(received_time) as varchar) as v from " + lit("trades.parquet"),
	}
	want := map[string]decimal.Decimal{"trades_notional": notional, "books_size": bookSize, "books_empty": decimal.NewFromInt(1),
		"fills_fee": fees, "series_cash": cash, "meta_marketwide": decimal.NewFromInt(1)}

	var names []string
	for name := range counts {
		names = append(names, name)
	}
	sort.Strings(names)
	job := struct {
		Files   []string          `json:"files"`
		Queries map[string]string `json:"queries"`
	}{Queries: queries}
	for _, name := range names {
		job.Files = append(job.Files, p(name))
	}
	jobJSON, err := json.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "duckdb_check.cjs")
	if err := os.WriteFile(script, []byte(duckdbScript), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, string(jobJSON))
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", script, err, stderr.String())
	}
	var out duckOutput
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("the script's output is not JSON: %v\n%s", err, stdout)
	}
	t.Logf("DuckDB %s", out.Version)
	for _, name := range names {
		f, ok := out.Files[p(name)]
		if !ok {
			t.Errorf("%s: not in DuckDB's answer", name)
			continue
		}
		var got []column
		for _, c := range f.Schema {
			got = append(got, column{Name: c.Name, Type: c.docType(), Nullable: c.Repetition == "OPTIONAL"})
		}
		if wantCols := docColumns(t, docs, name); !reflect.DeepEqual(got, wantCols) {
			t.Errorf("%s: DuckDB reads the columns\n%v\nthe docs say\n%v", name, got, wantCols)
		}
		if f.Rows != counts[name] {
			t.Errorf("%s: DuckDB counts %d rows, want %d", name, f.Rows, counts[name])
		}
		var cols []string
		for _, d := range f.Describe {
			cols = append(cols, d.Name+" "+d.Type)
		}
		t.Logf("%s: %d rows: %s", name, f.Rows, strings.Join(cols, ", "))
	}
	var labels []string
	for label := range queries {
		labels = append(labels, label)
	}
	sort.Strings(labels)
	for _, label := range labels {
		rows := out.Queries[label]
		if len(rows) != 1 {
			t.Errorf("%s: %d rows", label, len(rows))
			continue
		}
		v, _ := rows[0]["v"].(string)
		t.Logf("%s = %s", label, v)
		w, ok := want[label]
		if !ok {
			continue
		}
		if d, err := decimal.NewFromString(v); err != nil || !d.Equal(w) {
			t.Errorf("%s: DuckDB says %q, want %s", label, v, w)
		}
	}
	// DuckDB keeps microseconds of a nanosecond timestamp (the docs say so).
	if v, _ := out.Queries["recv_max"][0]["v"].(string); v != "2026-03-01 12:00:00.005417+00" {
		t.Errorf("max(received_time) of trades is %q", v)
	}
}
