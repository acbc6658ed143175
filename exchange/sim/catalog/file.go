package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/mmbot/mmbot/internal/atomicfile"
)

// Load reads a catalog from JSON (the shape Save writes), rejecting unknown
// fields, and validates it.
func Load(r io.Reader) (*Catalog, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var c Catalog
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("catalog: decoding: %w", err)
	}
	if _, err := NewIndex(&c); err != nil {
		return nil, err
	}
	return &c, nil
}

// LoadFile reads a catalog file.
func LoadFile(path string) (*Catalog, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	defer f.Close()
	return Load(f)
}

// Save writes c as indented JSON.
func Save(w io.Writer, c *Catalog) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return fmt.Errorf("catalog: encoding: %w", err)
	}
	return nil
}

// SaveFile writes c to path atomically (temporary file, fsync, rename).
func SaveFile(path string, c *Catalog) error {
	var buf bytes.Buffer
	if err := Save(&buf, c); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, 0o644, func(w io.Writer) error { _, err := buf.WriteTo(w); return err }); err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	return nil
}
