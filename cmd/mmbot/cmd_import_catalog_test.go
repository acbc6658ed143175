package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mmbot import --catalog with a snapshot in the live listing's shape: its
// placeholder markets (tokens without token_id, minimum_order_size 0) are
// skipped and named in the summary; the import uses the rest.
func TestImportLiveCatalogWithPlaceholders(t *testing.T) {
	dir := t.TempDir()
	writeCapture(t, dir)
	catalog := filepath.Join(dir, "snap.json")
	writeCatalog(t, catalog)
	b, err := os.ReadFile(catalog)
	if err != nil {
		t.Fatal(err)
	}
	var page map[string]any
	if err := json.Unmarshal(b, &page); err != nil {
		t.Fatal(err)
	}
	const hole = "0x5eed00000000000000000000000000000000000000000000000000000000000a"
	page["data"] = append(page["data"].([]any), map[string]any{"condition_id": hole, "active": false, "accepting_orders": false,
		"minimum_order_size": 0, "minimum_tick_size": 0.01, "tokens": []any{map[string]any{"token_id": "", "outcome": ""}, map[string]any{"token_id": "", "outcome": ""}}})
	if b, err = json.Marshal(page); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(catalog, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, "rec.jsonl.gz")
	code, stdout, stderr := runBt("import", "--out", rec, "--catalog", catalog, "--complement", "--json", filepath.Join(dir, "ws-*"))
	if code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	if want := "catalog: 1 market skipped (no usable token id): " + hole + " (a token without token_id (inactive, not accepting orders))"; !strings.Contains(stderr, want) {
		t.Errorf("summary lacks %q:\n%s", want, stderr)
	}
	if !strings.Contains(stdout, `"catalog_skipped"`) || !strings.Contains(stdout, hole) {
		t.Errorf("--json lacks the skipped market:\n%s", stdout)
	}
	if !strings.Contains(stderr, "derived (--complement): 3001 books") {
		t.Errorf("the market of the snapshot was not used:\n%s", stderr)
	}
}
