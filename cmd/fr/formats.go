package main

import (
	"errors"
	"fmt"
	"slices"

	"github.com/factreasoner/factreasoner-go/batch"
	"github.com/factreasoner/factreasoner-go/instance"
)

// The files fr reads come in several formats, and each command reads
// some: a file given to the wrong one fails at its first record with an
// error about that record ("no atoms", "empty response"). withFormatHint
// adds what the file is and which command reads it.

// pointers say, for each format, what the file is and what reads it.
var pointers = map[batch.Format]string{
	batch.FormatInput:        "a FactReasoner file: fr score, fr compare and fr factscore read it",
	batch.FormatScored:       "an output of fr score: fr compare, fr inspect and fr report read it as scored, and fr score scores it again from its relations",
	batch.FormatLabeled:      "FActScore's human-labeled format (\"annotations\"): fr factscore --gold scores its labels, and fr convert factscore turns it into a FactReasoner file for fr score",
	batch.FormatFActScoreRun: "an output of fr factscore: fr compare and fr report read it beside outputs of fr score",
	batch.FormatResults:      "a FactReasoner result file: fr compare and fr report read it",
}

// withFormatHint adds to err, an error of a command that reads input in
// one of the formats wants, what the file is when it is another format
// fr reads, and the commands that read it. Other errors, and errors
// about other files, are returned as they are.
func withFormatHint(err error, input string, wants ...batch.Format) error {
	// Only an error about a field of a record (no atoms, an empty
	// response, no annotations) can be one of format: a file that is not
	// records at all, broken JSON or a line too long is in no format fr
	// reads, and telling the format could mean reading the file again.
	var ie *instance.Error
	if err == nil || !errors.As(err, &ie) || ie.File != input || ie.Field == "" {
		return err
	}
	f := batch.DetectFormat(input)
	if f == batch.FormatUnknown || slices.Contains(wants, f) {
		return err
	}
	return &hintedError{msg: fmt.Sprintf("%v; %s is %s", err, input, pointers[f]), err: err}
}

// hintedError is an error with a pointer to what reads its file.
type hintedError struct {
	msg string
	err error
}

func (e *hintedError) Error() string { return e.msg }
func (e *hintedError) Unwrap() error { return e.err }
