package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	tmp, err := os.CreateTemp(filepath.Dir(path), ".catalog-*")
	if err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return fmt.Errorf("catalog: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("catalog: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	return nil
}
