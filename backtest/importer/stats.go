package importer

import (
	"maps"
	"time"
)

// Stats counts what an import read and wrote. Every message read is either
// imported (Imported, by event_type) or skipped (Skipped, by reason):
// Messages is the sum of both.
type Stats struct {
	Files    []string       `json:"files,omitempty"` // the inputs, in the order read
	Messages int            `json:"messages"`        // messages read
	Imported map[string]int `json:"imported"`        // messages that became events, by event_type
	Skipped  map[string]int `json:"skipped"`         // messages that did not, by "event_type: reason"
	// Frames counts the lines of the input that are no message and were
	// skipped, by kind: keep-alives (PING, PONG), empty lines, other text
	// frames. They are not messages (not in Messages).
	Frames map[string]int `json:"frames_skipped"`
	// ChangesSkipped counts the price_change entries, inside messages
	// otherwise imported, for a token that had no book yet.
	ChangesSkipped int `json:"changes_skipped"`
	// Crossed counts the crossed books repaired, by rule (see
	// docs/data-format.md), and LevelsDropped the levels the repairs
	// removed.
	Crossed       map[string]int `json:"crossed"`
	LevelsDropped int            `json:"levels_dropped"`
	// OutOfOrder counts the book updates (price_change or book messages)
	// dated before the token's book they follow: they are written at that
	// book's time, in the order they came (Warnings name the markets).
	OutOfOrder int `json:"out_of_order"`

	Events int `json:"events"` // events written: Books + Trades + Metas
	Books  int `json:"books"`
	Trades int `json:"trades"`
	Metas  int `json:"metas"`
	// DerivedBooks and DerivedTrades are the events of Options.Complement
	// (also counted in Books and Trades).
	DerivedBooks  int `json:"derived_books"`
	DerivedTrades int `json:"derived_trades"`

	First time.Time `json:"first,omitzero"` // time of the first event written
	Last  time.Time `json:"last,omitzero"`  // time of the last event written
	// CatalogSkipped are the catalog snapshot's markets that were not used
	// (Options.CatalogSkipped, from ReadCatalog): placeholders without
	// token ids.
	CatalogSkipped []SkippedMarket `json:"catalog_skipped,omitempty"`
	// Warnings are what a backtest of the output should know: outcomes
	// without books, derived books, tokens no message places in a market.
	Warnings []string `json:"warnings,omitempty"`
}

func newStats() Stats {
	return Stats{Imported: map[string]int{}, Skipped: map[string]int{}, Frames: map[string]int{}, Crossed: map[string]int{}}
}

// stats returns a copy of the counts that the importer will not change.
func (im *importer) stats() Stats {
	s := im.st
	s.Files = append([]string(nil), s.Files...)
	s.Imported = maps.Clone(s.Imported)
	s.Skipped = maps.Clone(s.Skipped)
	s.Frames = maps.Clone(s.Frames)
	s.Crossed = maps.Clone(s.Crossed)
	s.Warnings = append([]string(nil), s.Warnings...)
	s.CatalogSkipped = append([]SkippedMarket(nil), s.CatalogSkipped...)
	return s
}

// Skip reasons, as keys of Stats.Skipped (after "<event_type>: ").
const (
	reasonNotUsed     = "not used by the backtest"
	reasonNoType      = "(no event_type): not a market-channel message"
	reasonBeforeBook  = "price_change: every change is for a token with no book yet"
	reasonNoChanges   = "price_change: no changes"
	reasonCrossedSnap = "book: crossed snapshot, not written (its levels stay for the changes that follow)"
)

// Crossed-book repair rules, as keys of Stats.Crossed.
const (
	crossedByBest  = "levels beyond the message's best_bid/best_ask dropped"
	crossedByStale = "crossed levels on the stale side dropped"
)
