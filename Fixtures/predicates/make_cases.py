#!/usr/bin/env python3
"""Writes cases.json: the predicate fixture cases, each with its expected result.

Every expected id set is computed HERE, by a small Python oracle written directly against the
data in make_dataset.py (one lambda per case, or per generated family of cases) — never by
running the Swift evaluator. Keep the oracle naive: it is the reference the Swift code is
checked against. Re-run after editing: `python3 Fixtures/predicates/make_cases.py`.

Case format (one JSON object per case):
  id        unique name, "<family>-<n>"
  entity    "Person" or "Department": the objects the predicate is evaluated against
  format    the NSPredicate format string
  args      typed arguments: {"int": 5} {"double": 1.5} {"string": "x"} {"bool": true}
            {"date": "1990-01-31"} {"uuid": "..."} {"decimal": "1.5"} {"url": "..."}
            {"data": "<base64>"} {"null": true} (a nil Optional) {"nsnull": true}
            {"array": [...]} {"set": [...]} {"person": id} {"department": id} (the object itself)
            {"unsupported": "..."} (a value of a type predicates do not accept)
  variables optional {"NAME": typed argument} passed at evaluation
  expect    sorted ids of the matching objects, or
  error     the PredicateError.Kind expected (from parsing or from evaluation), with
  offset    for syntax errors, the character offset reported
"""
import json, os, re, sys, unicodedata
sys.dont_write_bytecode = True
from datetime import datetime, timezone
from make_dataset import dataset

D = dataset()
PEOPLE, DEPTS = D["people"], D["departments"]
P = {p["id"]: p for p in PEOPLE}
DP = {d["id"]: d for d in DEPTS}
REF = datetime(2001, 1, 1, tzinfo=timezone.utc)


def dept(p): return DP.get(p["department"])
def emps(d): return [p for p in PEOPLE if p["department"] == d["id"]]
def friends(p): return [P[i] for i in p["friends"]]
def bday(p): return datetime.fromisoformat(p["birthday"]).replace(tzinfo=timezone.utc)
def secs(iso): return (datetime.fromisoformat(iso).replace(tzinfo=timezone.utc) - REF).total_seconds()


def fold(s, mods):
    if "d" in mods:
        s = "".join(c for c in unicodedata.normalize("NFD", s) if not unicodedata.combining(c))
        s = unicodedata.normalize("NFC", s)
    if "c" in mods:
        s = s.lower()
    return s


def like(s, pattern, mods):
    s, pattern = fold(s, mods), fold(pattern, mods)
    rx = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.fullmatch(rx, s, re.S) is not None


def matches(s, pattern, mods):
    flags = re.I if "c" in mods else 0
    return re.fullmatch(fold(pattern, mods.replace("c", "")), fold(s, mods.replace("c", "")), flags) is not None


I = lambda v: {"int": v}
F = lambda v: {"double": v}
S = lambda v: {"string": v}
B = lambda v: {"bool": v}
DT = lambda v: {"date": v}
A = lambda *v: {"array": list(v)}
SET = lambda *v: {"set": list(v)}
NUL = {"null": True}
PR = lambda i: {"person": i}
DR = lambda i: {"department": i}

cases = []


def add(family, entity, fmt, pred=None, args=(), variables=None, error=None, offset=None):
    case = {"id": "%s-%d" % (family, sum(1 for c in cases if c["id"].startswith(family + "-")) + 1),
            "entity": entity, "format": fmt, "args": list(args)}
    if variables is not None:
        case["variables"] = variables
    if error is not None:
        case["error"] = error
        if offset is not None:
            case["offset"] = offset
    else:
        objects = PEOPLE if entity == "Person" else DEPTS
        case["expect"] = sorted(o["id"] for o in objects if pred(o))
    cases.append(case)


def person(family, fmt, pred, args=(), variables=None): add(family, "Person", fmt, pred, args, variables)
def department(family, fmt, pred, args=(), variables=None): add(family, "Department", fmt, pred, args, variables)
def error(family, fmt, kind, offset=None, args=(), variables=None, entity="Person"):
    add(family, entity, fmt, args=args, variables=variables, error=kind, offset=offset)


# --- comparison operators, every spelling, on an integer attribute ------------------------------
OPS = {"=": lambda a, b: a == b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
       "<>": lambda a, b: a != b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
       "=<": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
       "=>": lambda a, b: a >= b}
for op, f in OPS.items():
    for v in (22, 34, 45, 61):
        person("cmp-age", "age %s %d" % (op, v), lambda p, f=f, v=v: f(p["age"], v))

# --- numbers across integer / double / decimal, literals of every form ---------------------------
person("num", "salary > 100000", lambda p: p["salary"] > 100000)
person("num", "salary == 72000.5", lambda p: p["salary"] == 72000.5)
person("num", "salary >= 1e5", lambda p: p["salary"] >= 1e5)
person("num", "age == 34.0", lambda p: p["age"] == 34)
person("num", "age < 0x1E", lambda p: p["age"] < 30)
person("num", "age > -5", lambda p: True)
person("num", "age > 0o50 AND age < 0b110010", lambda p: 40 < p["age"] < 50)
person("num", "salary < CAST('50000', 'NSNumber')", lambda p: p["salary"] < 50000)
person("num", "age > CAST('40', 'NSDecimalNumber')", lambda p: p["age"] > 40)
department("num", "rating > 3.5", lambda d: float(d["rating"]) > 3.5)
department("num", "rating == 4.25", lambda d: d["rating"] == "4.25")
department("num", "rating >= %d", lambda d: float(d["rating"]) >= 3, args=[I(3)])
department("num", "budget <= rating", lambda d: d["budget"] <= float(d["rating"]))

# --- format arguments of every specifier ----------------------------------------------------------
person("arg", "age > %d", lambda p: p["age"] > 50, [I(50)])
person("arg", "age > %i", lambda p: p["age"] > 50, [I(50)])
person("arg", "age <= %ld", lambda p: p["age"] <= 25, [I(25)])
person("arg", "age <= %lld", lambda p: p["age"] <= 25, [I(25)])
person("arg", "age == %u", lambda p: p["age"] == 33, [I(33)])
person("arg", "salary > %f", lambda p: p["salary"] > 99000.0, [F(99000.0)])
person("arg", "salary < %lf", lambda p: p["salary"] < 50000, [I(50000)])
person("arg", "age == %@", lambda p: p["age"] == 29, [I(29)])
person("arg", "name == %@", lambda p: p["name"] == "Eve", [S("Eve")])
person("arg", "%K == %@", lambda p: p["name"] == "Bob", [S("name"), S("Bob")])
person("arg", "%K.name == %@", lambda p: dept(p) is not None and dept(p)["name"] == "Sales", [S("department"), S("Sales")])
person("arg", "%K > %d", lambda p: len(p["friends"]) > 2, [S("friends.@count"), I(2)])
person("arg", "name == '%@'", lambda p: p["name"] == "%@")
person("arg", "active == %@", lambda p: p["active"], [B(True)])
person("arg", "active == %d", lambda p: not p["active"], [B(False)])
person("arg", "nickname == %@", lambda p: p["nickname"] is None, [NUL])
person("arg", "nickname != %@", lambda p: p["nickname"] is not None, [{"nsnull": True}])
person("arg", "uuid == %@", lambda p: p["id"] == 7, [{"uuid": "00000000-0000-4000-8000-000000000007"}])
person("arg", "uuid != %@", lambda p: p["id"] != 7, [{"uuid": "00000000-0000-4000-8000-000000000007"}])
department("arg", "rating == %@", lambda d: d["rating"] == "3.75", [{"decimal": "3.75"}])
department("arg", "budget == %@", lambda d: d["budget"] == 400000, [{"decimal": "400000"}])

# --- logic and precedence ---------------------------------------------------------------------
person("logic", "age > 40 AND active == YES", lambda p: p["age"] > 40 and p["active"])
person("logic", "age > 40 && active == NO", lambda p: p["age"] > 40 and not p["active"])
person("logic", "age < 25 OR age > 55", lambda p: p["age"] < 25 or p["age"] > 55)
person("logic", "age < 25 || age > 55", lambda p: p["age"] < 25 or p["age"] > 55)
person("logic", "NOT age > 30", lambda p: not p["age"] > 30)
person("logic", "! (age > 30)", lambda p: not p["age"] > 30)
person("logic", "age < 25 OR age > 55 AND active == YES", lambda p: p["age"] < 25 or (p["age"] > 55 and p["active"]))
person("logic", "(age < 25 OR age > 55) AND active == YES", lambda p: (p["age"] < 25 or p["age"] > 55) and p["active"])
person("logic", "NOT active == YES AND age > 40", lambda p: (not p["active"]) and p["age"] > 40)
person("logic", "NOT (active == YES AND age > 40)", lambda p: not (p["active"] and p["age"] > 40))
person("logic", "age > 30 and age < 40 or name == 'Eve'", lambda p: 30 < p["age"] < 40 or p["name"] == "Eve")
person("logic", "not not active = true", lambda p: p["active"])
person("logic", "TRUEPREDICATE", lambda p: True)
person("logic", "FALSEPREDICATE", lambda p: False)
person("logic", "truepredicate AND age == 22", lambda p: p["age"] == 22)
person("logic", "FALSEPREDICATE OR age == 22", lambda p: p["age"] == 22)
person("logic", "NOT FALSEPREDICATE", lambda p: True)
person("logic", "((age == 22))", lambda p: p["age"] == 22)
person("logic", "active == TRUE AND active != FALSE", lambda p: p["active"])
person("logic", "active == 1", lambda p: p["active"])

# --- BETWEEN ------------------------------------------------------------------------------------
person("between", "age BETWEEN {30, 40}", lambda p: 30 <= p["age"] <= 40)
person("between", "age between {22, 22}", lambda p: p["age"] == 22)
person("between", "age BETWEEN %@", lambda p: 45 <= p["age"] <= 61, [A(I(45), I(61))])
person("between", "salary BETWEEN {%d, %f}", lambda p: 60000 <= p["salary"] <= 72000.5, [I(60000), F(72000.5)])
person("between", "birthday BETWEEN %@", lambda p: "1980-01-01" <= p["birthday"] <= "1989-12-31",
       [A(DT("1980-01-01"), DT("1989-12-31"))])
person("between", "NOT age BETWEEN {25, 50}", lambda p: not 25 <= p["age"] <= 50)
person("between", "name BETWEEN {'B', 'E'}", lambda p: "B" <= p["name"] <= "E")

# --- IN -------------------------------------------------------------------------------------------
person("in", "age IN {22, 33, 99}", lambda p: p["age"] in (22, 33, 99))
person("in", "name IN {'Alice', 'Bob', 'Nobody'}", lambda p: p["name"] in ("Alice", "Bob"))
person("in", "name IN[c] {'ALICE', 'bob'}", lambda p: p["name"].lower() in ("alice", "bob"))
person("in", "name IN[cd] {'JOSE', 'zoe', 'RENEE'}", lambda p: fold(p["name"], "cd") in ("jose", "zoe", "renee"))
person("in", "age IN %@", lambda p: p["age"] in (23, 61), [A(I(23), I(61))])
person("in", "name IN %@", lambda p: p["name"] in ("Carol", "Dave"), [SET(S("Dave"), S("Carol"))])
person("in", "id IN %@", lambda p: False, [A()])
person("in", "NOT age IN {22, 23, 26}", lambda p: p["age"] not in (22, 23, 26))
person("in", "'Ivan' IN friends.name", lambda p: any(f["name"] == "Ivan" for f in friends(p)))
person("in", "%@ IN friends", lambda p: 1 in p["friends"], [PR(1)])
person("in", "SELF IN %@", lambda p: p["id"] in (2, 4, 6), [A(PR(2), PR(4), PR(6))])
person("in", "name IN 'Alice and Bob and Carol'", lambda p: p["name"] in "Alice and Bob and Carol")
person("in", "nickname IN[c] 'FRANKIE ROCKS'", lambda p: p["nickname"] is not None and p["nickname"].lower() in "frankie rocks")
person("in", "department.name IN {'Sales', 'Marketing'}", lambda p: dept(p) is not None and dept(p)["name"] in ("Sales", "Marketing"))
person("in", "uuid IN %@", lambda p: p["id"] in (1, 20),
       [A({"uuid": "00000000-0000-4000-8000-000000000001"}, {"uuid": "00000000-0000-4000-8000-000000000020"})])

# --- string operators × modifiers -------------------------------------------------------------------
STRING_OPS = {
    "BEGINSWITH": lambda s, t, m: fold(s, m).startswith(fold(t, m)),
    "ENDSWITH": lambda s, t, m: fold(s, m).endswith(fold(t, m)),
    "CONTAINS": lambda s, t, m: fold(t, m) in fold(s, m),
    "==": lambda s, t, m: fold(s, m) == fold(t, m),
}
PATTERNS = {"BEGINSWITH": ["jo", "Ren", "ZO", "m"], "ENDSWITH": ["E", "ée", "ë", "y"],
            "CONTAINS": ["e", "RE", "é", "o"], "==": ["jose", "ZOË", "renee", "MALLORY"]}
for op, f in STRING_OPS.items():
    for mods in ("", "c", "d", "cd"):
        for t in PATTERNS[op]:
            spelled = "%s[%s]" % (op, mods) if mods else op
            person("str", "name %s '%s'" % (spelled, t), lambda p, f=f, t=t, m=mods: f(p["name"], t, m))
person("str", "email ENDSWITH '@corp.net'", lambda p: p["email"].endswith("@corp.net"))
person("str", "nickname BEGINSWITH 'F'", lambda p: p["nickname"] is not None and p["nickname"].startswith("F"))
person("str", "nickname CONTAINS[c] 'i'", lambda p: p["nickname"] is not None and "i" in p["nickname"].lower())
person("str", "name contains[n] 'a'", lambda p: "a" in p["name"])
person("str", "name BEGINSWITH %@", lambda p: p["name"].startswith("Ca"), [S("Ca")])
person("str", "department.name CONTAINS[cd] 'resume'", lambda p: dept(p) is not None and "resume" in fold(dept(p)["name"], "cd"))
person("str", "name < 'D'", lambda p: p["name"] < "D")
person("str", "name >= 'T'", lambda p: p["name"] >= "T")
person("str", "name == \"Zo\\u00EB\"", lambda p: p["name"] == "Zoë")
person("str", "email == 'alice\\@example.com'", lambda p: p["name"] == "Alice")
department("str", "name == 'Research & Development'", lambda d: d["name"] == "Research & Development")
department("str", "name ==[c] \"résumé services\"", lambda d: d["name"].lower() == "résumé services")

# --- LIKE ---------------------------------------------------------------------------------------
for pattern in ("*e", "?o*", "*a*a*", "J?s?", "*", "M*", "????"):
    for mods in ("", "c", "cd"):
        spelled = "LIKE[%s]" % mods if mods else "LIKE"
        person("like", "name %s '%s'" % (spelled, pattern), lambda p, t=pattern, m=mods: like(p["name"], t, m))
person("like", "email LIKE '*@example.???'", lambda p: like(p["email"], "*@example.???", ""))
person("like", "nickname like 'F*'", lambda p: p["nickname"] is not None and like(p["nickname"], "F*", ""))

# --- MATCHES ------------------------------------------------------------------------------------
for pattern, mods in (("[A-C].*", ""), ("[a-c].*", "c"), (".*(e|y)", ""), ("Jos[eé]", ""), ("jose", "cd"),
                      ("[A-Z][a-z]{2}", ""), ("a|Alice", ""), ("al", "c"), (".*\\\\d.*", "")):
    spelled = "MATCHES[%s]" % mods if mods else "MATCHES"
    person("matches", "name %s '%s'" % (spelled, pattern),
           lambda p, t=pattern.replace("\\\\", "\\"), m=mods: matches(p["name"], t, m))
person("matches", "email MATCHES %@", lambda p: matches(p["email"], "[a-z]+@corp\\.net", ""), [S("[a-z]+@corp\\.net")])

# --- nil --------------------------------------------------------------------------------------------
person("nil", "nickname == nil", lambda p: p["nickname"] is None)
person("nil", "nickname != NULL", lambda p: p["nickname"] is not None)
person("nil", "nil == nickname", lambda p: p["nickname"] is None)
person("nil", "department == nil", lambda p: p["department"] is None)
person("nil", "department.name == nil", lambda p: p["department"] is None)
person("nil", "department != nil AND department.budget > 500000", lambda p: dept(p) is not None and dept(p)["budget"] > 500000)
person("nil", "nickname < 'M'", lambda p: p["nickname"] is not None and p["nickname"] < "M")
person("nil", "NOT nickname BEGINSWITH 'F'", lambda p: not (p["nickname"] is not None and p["nickname"].startswith("F")))

# --- dates, uuids -----------------------------------------------------------------------------------
person("date", "birthday < %@", lambda p: p["birthday"] < "1980-01-01", [DT("1980-01-01")])
person("date", "birthday >= %@", lambda p: p["birthday"] >= "1995-11-30", [DT("1995-11-30")])
person("date", "birthday == %@", lambda p: p["birthday"] == "1990-03-15", [DT("1990-03-15")])
person("date", "birthday > CAST(%d, 'NSDate')", lambda p: bday(p) > REF, [I(0)])
person("date", "birthday < CAST(-631152000, \"NSDate\")", lambda p: (bday(p) - REF).total_seconds() < -631152000)
person("date", "birthday >= CAST(%f, 'NSDate')", lambda p: bday(p) >= datetime(1990, 1, 1, tzinfo=timezone.utc),
       [F(secs("1990-01-01"))])
person("date", "birthday < CAST('1970-01-01T00:00:00Z', 'NSDate')", lambda p: p["birthday"] < "1970-01-01")
person("date", "uuid == CAST('00000000-0000-4000-8000-000000000003', 'NSUUID')", lambda p: p["id"] == 3)

# --- key paths through relationships ------------------------------------------------------------------
person("path", "department.name == 'Engineering'", lambda p: dept(p) is not None and dept(p)["name"] == "Engineering")
person("path", "department.budget < 400000", lambda p: dept(p) is not None and dept(p)["budget"] < 400000)
person("path", "department == %@", lambda p: p["department"] == 102, [DR(102)])
person("path", "department != %@", lambda p: p["department"] != 102, [DR(102)])
person("path", "SELF == %@", lambda p: p["id"] == 5, [PR(5)])
person("path", "SELF != %@", lambda p: p["id"] != 5, [PR(5)])
person("path", "SELF.name == 'Eve'", lambda p: p["name"] == "Eve")
person("path", "#name == 'Eve'", lambda p: p["name"] == "Eve")
person("path", "department.employees.@count > 4", lambda p: dept(p) is not None and len(emps(dept(p))) > 4)
person("path", "ANY friends.department.name == 'Sales'",
       lambda p: any(dept(f) is not None and dept(f)["name"] == "Sales" for f in friends(p)))
person("path", "friends.name == 'Alice'", lambda p: any(f["name"] == "Alice" for f in friends(p)))
person("path", "friends CONTAINS %@", lambda p: 7 in p["friends"], [PR(7)])
department("path", "employees CONTAINS %@", lambda d: P[8]["department"] == d["id"], [PR(8)])
department("path", "ANY employees == %@", lambda d: P[3]["department"] == d["id"], [PR(3)])

# --- quantifiers ---------------------------------------------------------------------------------------
person("quant", "ANY friends.age > 50", lambda p: any(f["age"] > 50 for f in friends(p)))
person("quant", "SOME friends.age > 50", lambda p: any(f["age"] > 50 for f in friends(p)))
person("quant", "ALL friends.age > 30", lambda p: all(f["age"] > 30 for f in friends(p)))
person("quant", "NONE friends.active == YES", lambda p: not any(f["active"] for f in friends(p)))
person("quant", "any friends.name BEGINSWITH[c] 'a'", lambda p: any(f["name"].lower().startswith("a") for f in friends(p)))
person("quant", "ALL friends.department == %@", lambda p: all(f["department"] == 101 for f in friends(p)), [DR(101)])
person("quant", "ANY friends.nickname == nil", lambda p: any(f["nickname"] is None for f in friends(p)))
person("quant", "friends.@count > 0 AND ALL friends.active == YES",
       lambda p: len(p["friends"]) > 0 and all(f["active"] for f in friends(p)))
person("quant", "ANY friends.friends.name == 'Trent'",
       lambda p: any(g["name"] == "Trent" for f in friends(p) for g in friends(f)))
department("quant", "ANY employees.age > 55", lambda d: any(e["age"] > 55 for e in emps(d)))
department("quant", "ALL employees.active == YES", lambda d: all(e["active"] for e in emps(d)))
department("quant", "NONE employees.salary < 60000", lambda d: not any(e["salary"] < 60000 for e in emps(d)))
department("quant", "ANY employees.name IN {'Eve', 'Zoë'}", lambda d: any(e["name"] in ("Eve", "Zoë") for e in emps(d)))
department("quant", "ALL employees.age BETWEEN {25, 50}", lambda d: all(25 <= e["age"] <= 50 for e in emps(d)))

# --- aggregates ------------------------------------------------------------------------------------------
def avg(xs): return sum(xs) / len(xs) if xs else None
department("agg", "employees.@count == 3", lambda d: len(emps(d)) == 3)
department("agg", "employees.@count > %d", lambda d: len(emps(d)) > 3, [I(3)])
department("agg", "employees.@count == 0", lambda d: len(emps(d)) == 0)
department("agg", "employees.@sum.salary > 300000", lambda d: sum(e["salary"] for e in emps(d)) > 300000)
department("agg", "employees.@sum.age == 0", lambda d: sum(e["age"] for e in emps(d)) == 0)
department("agg", "employees.@avg.age > 40", lambda d: avg([e["age"] for e in emps(d)]) is not None and avg([e["age"] for e in emps(d)]) > 40)
department("agg", "employees.@avg.salary < 70000", lambda d: (avg([e["salary"] for e in emps(d)]) or 1e99) < 70000)
department("agg", "employees.@min.age < 25", lambda d: emps(d) and min(e["age"] for e in emps(d)) < 25)
department("agg", "employees.@max.salary >= 120000", lambda d: emps(d) and max(e["salary"] for e in emps(d)) >= 120000)
department("agg", "employees.@max.birthday > %@", lambda d: emps(d) and max(e["birthday"] for e in emps(d)) > "2000-01-01", [DT("2000-01-01")])
department("agg", "employees.@min.name == 'Eve'", lambda d: emps(d) and min(e["name"] for e in emps(d)) == "Eve")
department("agg", "employees.@sum.salary > budget", lambda d: sum(e["salary"] for e in emps(d)) > d["budget"])
department("agg", "employees.@avg.age BETWEEN {30, 40}", lambda d: emps(d) and 30 <= avg([e["age"] for e in emps(d)]) <= 40)
person("agg", "friends.@count == 0", lambda p: not p["friends"])
person("agg", "friends.@count >= 3", lambda p: len(p["friends"]) >= 3)
person("agg", "friends.@avg.age > 40", lambda p: p["friends"] and avg([f["age"] for f in friends(p)]) > 40)
person("agg", "friends.@max.age == 61", lambda p: p["friends"] and max(f["age"] for f in friends(p)) == 61)
person("agg", "department.employees.@sum.salary > 400000",
       lambda p: dept(p) is not None and sum(e["salary"] for e in emps(dept(p))) > 400000)
person("agg", "{1, 2, 3}.@sum == 6", lambda p: True)
person("agg", "{age, 10}.@max == age", lambda p: p["age"] >= 10)

# --- SUBQUERY ----------------------------------------------------------------------------------------------
department("subq", "SUBQUERY(employees, $e, $e.age > 40).@count >= 2", lambda d: sum(1 for e in emps(d) if e["age"] > 40) >= 2)
department("subq", "SUBQUERY(employees, $e, $e.active == NO AND $e.salary > 60000).@count > 0",
           lambda d: any(not e["active"] and e["salary"] > 60000 for e in emps(d)))
department("subq", "SUBQUERY(employees, $x, ANY $x.friends.age > 55).@count == 1",
           lambda d: sum(1 for e in emps(d) if any(f["age"] > 55 for f in friends(e))) == 1)
department("subq", "SUBQUERY(employees, $e, $e.nickname == nil).@count == employees.@count",
           lambda d: all(e["nickname"] is None for e in emps(d)))
person("subq", "SUBQUERY(friends, $f, $f.department == department).@count > 0",
       lambda p: any(f["department"] == p["department"] and f["department"] is not None for f in friends(p)))
person("subq", "SUBQUERY(friends, $f, $f.age > $MIN).@count >= 1",
       lambda p: any(f["age"] > 50 for f in friends(p)), variables={"MIN": I(50)})

# --- variables ---------------------------------------------------------------------------------------------
person("var", "age > $MIN", lambda p: p["age"] > 55, variables={"MIN": I(55)})
person("var", "name IN $NAMES", lambda p: p["name"] in ("Eve", "Ivan"), variables={"NAMES": A(S("Eve"), S("Ivan"))})
person("var", "department == $D", lambda p: p["department"] == 104, variables={"D": DR(104)})
person("var", "age BETWEEN {$LO, $HI}", lambda p: 30 <= p["age"] <= 35, variables={"LO": I(30), "HI": I(35)})
person("var", "nickname == $N", lambda p: p["nickname"] is None, variables={"N": NUL})

# --- parse errors (offsets are character offsets) --------------------------------------------------------------
error("syntax", "age >", "syntax", 5)
error("syntax", "age > 5 AND", "syntax", 11)
error("syntax", "(age > 5", "syntax", 8)
error("syntax", "age > 5)", "syntax", 7)
error("syntax", "age ~ 5", "syntax", 4)
error("syntax", "age 5", "syntax", 4)
error("syntax", "name == 'open", "syntax", 8)
error("syntax", "name BEGINSWITH[x] 'a'", "syntax", 16)
error("syntax", "age < [c] 5", "syntax", 6)
error("syntax", "age BETWEEN {1, 2, 3}", "syntax", 12)
error("syntax", "age BETWEEN 5", "syntax", 12)
error("syntax", "age IN {1, 2", "syntax", 12)
error("syntax", "employees.@median > 1", "syntax", 10)
error("syntax", "SUBQUERY(friends, f, TRUEPREDICATE).@count > 0", "syntax", 18)
error("syntax", "age > %x", "syntax", 6)
error("syntax", "Zoë == 'x' AND", "syntax", 14)
error("syntax", "name == 'Zoë' 5", "syntax", 14)
error("syntax", "AND age > 1", "syntax", 0)
error("syntax", "", "syntax", 0)
error("syntax", "age > CAST('x', 'NSBogus')", "syntax", 16)
error("syntax", "friends.@count.name > 1", "syntax", 15)
error("syntax", "age > - name", "syntax", 8)
error("syntax", "department.IN == 1", "syntax", 11)

# --- argument errors ---------------------------------------------------------------------------------------
error("args", "age > %d AND age < %d", "missingArgument", args=[I(1)])
error("args", "age > %d", "extraArgument", args=[I(1), I(2)])
error("args", "age > 1", "extraArgument", args=[I(1)])
error("args", "%K == 1", "unsupportedArgument", args=[I(3)])
error("args", "%K == 1", "unsupportedArgument", args=[S("no key path")])
error("args", "age > %d", "unsupportedArgument", args=[S("ten")])
error("args", "salary > %f", "unsupportedArgument", args=[S("ten")])
error("args", "name == %@", "unsupportedArgument", args=[{"unsupported": "opaque"}])
error("args", "name IN %@", "unsupportedArgument", args=[A(S("x"), {"unsupported": "opaque"})])

# --- evaluation errors ------------------------------------------------------------------------------------
error("eval", "age > $MISSING", "unknownVariable")
error("eval", "age > $MIN AND name == $NAME", "unknownVariable", variables={"MIN": I(1)})
error("eval", "salaryy > 5", "unknownKey")
error("eval", "department.nme == 'x'", "unknownKey")
error("eval", "name > 5", "typeMismatch")
error("eval", "age == 'thirty'", "typeMismatch")
error("eval", "age BEGINSWITH '3'", "typeMismatch")
error("eval", "birthday < 5", "typeMismatch")
error("eval", "uuid == 'x'", "typeMismatch")
error("eval", "name MATCHES '(unclosed'", "invalidRegex")
error("eval", "name.first == 'A'", "typeMismatch")
error("eval", "age IN 5", "typeMismatch")
error("eval", "department > 5", "typeMismatch")
error("eval", "employees.@sum.name > 0", "typeMismatch", entity="Department")

if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    assert len({c["id"] for c in cases}) == len(cases)
    with open(os.path.join(here, "cases.json"), "w", encoding="utf-8") as f:
        json.dump(cases, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(len(cases), "cases")
