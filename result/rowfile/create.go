package rowfile

import (
	"errors"
	"io"
	"os"

	"github.com/mpbench/mpbench/result"
)

// Create creates the files of f that are named (truncating what is there,
// mode 0644), JSON Lines first, and writes meta to each. The returned
// *Open writes each later record to every file; the caller ends the run
// with WriteEnd (the end record, naming the run's error) and then Close.
// An error (the first file that cannot be created, or whose meta record
// cannot be written) is returned after the files opened so far are closed.
func (f Files) Create(meta result.Meta) (*Open, error) {
	o := &Open{}
	for _, file := range []struct {
		path string
		make func(io.Writer) Writer
	}{
		{f.JSON, func(w io.Writer) Writer { return NewJSONLWriter(w) }},
		{f.CSV, func(w io.Writer) Writer { return NewCSVWriter(w) }},
	} {
		if file.path == "" {
			continue
		}
		fd, err := os.OpenFile(file.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			o.Close()
			return nil, err
		}
		o.files = append(o.files, fd)
		w := file.make(fd)
		if err := w.WriteMeta(meta); err != nil {
			o.Close()
			return nil, err
		}
		o.writers = append(o.writers, w)
	}
	return o, nil
}

// Open is a run's open row files (Files.Create), a Writer for all of them
// at once: each record goes to every file, even after one failed, and the
// errors are returned joined (nil when all succeed), so that one broken
// file does not lose rows in the other. Every row reaches the files before
// WriteRow returns, so a run that fails part-way keeps the rows written.
// The zero Open has no files and writes nothing.
type Open struct {
	writers []Writer
	files   []*os.File
}

// WriteMeta writes a meta record to every file, which starts another run
// in them (Create wrote the first).
func (o *Open) WriteMeta(m result.Meta) error {
	return o.each(func(w Writer) error { return w.WriteMeta(m) })
}

// WriteRow writes r to every file.
func (o *Open) WriteRow(r result.Row) error {
	return o.each(func(w Writer) error { return w.WriteRow(r) })
}

// WriteFailure writes f to every file.
func (o *Open) WriteFailure(f Failure) error {
	return o.each(func(w Writer) error { return w.WriteFailure(f) })
}

// WriteEnd writes the end record to every file: ok for a nil runErr, else
// failed with runErr's message.
func (o *Open) WriteEnd(runErr error) error {
	return o.each(func(w Writer) error { return w.WriteEnd(runErr) })
}

// Close closes every file; the errors are returned joined.
func (o *Open) Close() error {
	var errs []error
	for _, f := range o.files {
		errs = append(errs, f.Close())
	}
	o.files = nil
	return errors.Join(errs...)
}

func (o *Open) each(write func(Writer) error) error {
	var errs []error
	for _, w := range o.writers {
		errs = append(errs, write(w))
	}
	return errors.Join(errs...)
}
