package main

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
)

// countFlag is a flag holding a whole number of at least 1 (--semaphore N, demo's --workers):
// Set refuses 0, a negative number and a non-number, so that the flag's parse error, which
// names the flag, reports it before anything connects.
type countFlag int

func (f *countFlag) String() string {
	if f == nil {
		return "0"
	}
	return strconv.Itoa(int(*f))
}

func (f *countFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return errors.New("want a whole number of at least 1")
	}
	*f = countFlag(n)
	return nil
}

// durationFlag is a flag holding a positive duration (--timeout, --session-timeout, ...): Set
// refuses 0, a negative duration, and a number without a unit, saying that a unit is needed.
type durationFlag time.Duration

func (f *durationFlag) String() string {
	if f == nil {
		return "0s"
	}
	return time.Duration(*f).String()
}

func (f *durationFlag) Set(s string) error {
	d, err := parseDuration(s)
	if err != nil {
		return err
	}
	*f = durationFlag(d)
	return nil
}

// parseDuration parses a positive duration flag's value; a bare number gets an error that says
// a unit is needed.
func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		if _, nerr := strconv.ParseFloat(s, 64); nerr == nil {
			return 0, errors.New("a duration needs a unit, such as 5s or 1m")
		}
		return 0, errors.New("want a duration such as 500ms, 5s or 1m")
	}
	if d <= 0 {
		return 0, errors.New("want a positive duration, such as 5s")
	}
	return d, nil
}

// flagMessage rewrites the flag package's messages to name flags as zklock's help does
// ("--timeout", not "-timeout").
func flagMessage(err error) string {
	msg := err.Error()
	for _, s := range []string{"flag -", "not defined: -", "argument: -"} {
		msg = strings.Replace(msg, s, s+"-", 1)
	}
	return msg
}

// checkPaths refuses a path ZooKeeper would refuse (relative, a trailing slash, ...) before
// anything connects: the error, a usage error for the caller, names the path and why.
func checkPaths(paths ...string) error {
	for _, p := range paths {
		if err := framework.ValidatePath(p); err != nil {
			return err
		}
	}
	return nil
}
