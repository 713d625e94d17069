// Package ent is the code ent generates from ./schema, committed so that the
// recipe builds without a generate step.
package ent

//go:generate go run -mod=mod entgo.io/ent/cmd/ent generate ./schema
