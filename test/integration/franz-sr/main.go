// franz-go's schema registry client (pkg/sr) against kafkite's registry: every call the test checks, its
// results printed as one JSON object ({"error": ...} when a call that should work failed).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/twmb/franz-go/pkg/sr"
)

const (
	v1 = `{"type":"record","name":"Event","fields":[{"name":"a","type":"string"}]}`
	v2 = `{"type":"record","name":"Event","fields":[{"name":"a","type":"string"},{"name":"b","type":"long","default":0}]}`
	// a changes type: neither reads the other's data.
	bad = `{"type":"record","name":"Event","fields":[{"name":"a","type":"int"}]}`
)

func must[T any](v T, err error) T {
	if err != nil {
		fmt.Printf("{\"error\":%q}\n", err.Error())
		os.Exit(0)
	}
	return v
}

// refusal is the status and Confluent error code of an expected failure.
func refusal(err error) map[string]int {
	var re *sr.ResponseError
	if !errors.As(err, &re) {
		return map[string]int{"status": -1}
	}
	return map[string]int{"status": re.StatusCode, "code": re.ErrorCode}
}

func main() {
	ctx := context.Background()
	cl := must(sr.NewClient(sr.URLs(os.Args[1])))
	const subject = "events-value"
	out := map[string]any{}

	out["types"] = must(cl.SupportedTypes(ctx))
	first := must(cl.CreateSchema(ctx, subject, sr.Schema{Schema: v1, Type: sr.TypeAvro}))
	second := must(cl.CreateSchema(ctx, subject, sr.Schema{Schema: v2, Type: sr.TypeAvro}))
	out["created"] = []map[string]int{{"id": first.ID, "version": first.Version}, {"id": second.ID, "version": second.Version}}
	out["byId"] = must(cl.SchemaByID(ctx, first.ID)).Schema
	out["text"] = must(cl.SchemaTextByID(ctx, second.ID))
	out["versions"] = must(cl.SubjectVersions(ctx, subject))
	out["latest"] = must(cl.SchemaByVersion(ctx, subject, -1)).Version
	out["lookup"] = must(cl.LookupSchema(ctx, subject, sr.Schema{Schema: v1})).Version
	out["check"] = must(cl.CheckCompatibility(ctx, subject, -1, sr.Schema{Schema: bad})).Is
	_, err := cl.CreateSchema(ctx, subject, sr.Schema{Schema: bad})
	out["incompatible"] = refusal(err)
	_, err = cl.SchemaByID(ctx, 9999)
	out["missingId"] = refusal(err)

	set := cl.SetCompatibility(ctx, sr.SetCompatibility{Level: sr.CompatFullTransitive}, subject)
	must(0, set[0].Err)
	got := cl.Compatibility(ctx, subject)
	out["compatibility"] = must(got[0].Level, got[0].Err).String()
	modes := cl.SetMode(ctx, sr.ModeReadOnly, subject)
	must(0, modes[0].Err)
	_, err = cl.CreateSchema(ctx, subject, sr.Schema{Schema: `"string"`})
	out["readOnly"] = refusal(err)
	must(0, cl.ResetMode(ctx, subject)[0].Err)

	out["softDeleted"] = must(cl.DeleteSubject(ctx, subject, sr.SoftDelete))
	out["subjectsAfterDelete"] = must(cl.Subjects(ctx))
	out["hardDeleted"] = must(cl.DeleteSubject(ctx, subject, sr.HardDelete))
	_, err = cl.SubjectVersions(sr.WithParams(ctx, sr.ShowDeleted), subject)
	out["afterHardDelete"] = refusal(err)

	b, _ := json.Marshal(out)
	fmt.Println(string(b))
}
