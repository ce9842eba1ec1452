#!/usr/bin/env python3
"""Writes scenarios.json: CoreValue's test scenarios (CoreValueTests.swift, UniqueTests.swift) as
data for Tests/CadmiumTests/Values/ValueFixtureTests.swift. The step format is described at the
top of Tests/CadmiumTests/Values/ValueFixture.swift. Run: python3 make_scenarios.py"""
import json


def employee(name, age, position=None, department="", job=""):
    value = {"name": name, "age": age, "department": department, "job": job}
    if position is not None:
        value["position"] = position
    return value


def names(values):
    return [v["name"] for v in values]


john = employee("John Doe", 20, "Manager", "Flowers", "Garden Guy")
nobody = employee("Nobody", 14, None, "Kindergarten", "Playing")
carl = employee("Carl", 66, None, "Register", "Owner")
chris = employee("Chris High", 23, None, "Factory", "Worker")
ben = employee("Ben Down", 32, None, "Factory", "Cleaner")
other = {
    "boolean": True, "data": "AAEC", "date": 500000000.5, "decimal": 12.5, "double": 10, "float": 20.5,
    "int16": -7, "int32": 70000, "int64": 5000000000, "int": 42, "string": "text",
    "uuid": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "url": "https://example.com/a?b=c", "level": 2,
    "size": {"width": 3, "height": 4.5}, "tags": ["red", "blue"],
}

hemingway = {"id": "e1x45", "name": "Hemingway"}
capek = {"id": "hbx31", "name": "Capek"}
kafka = {"id": "hbx31", "name": "Kafka"}


def article(id, text, author):
    return {"id": id, "text": text, "author": author}


football = {
    "id": "sports-football", "type": "sports", "label": "football",
    "articles": [article(1, "original_text_1", hemingway), article(2, "original_text_2", capek),
                 article(3, "original_text_3", hemingway)],
}
updated = [article(1, "updated_text_1", hemingway), article(2, "updated_text_2", kafka),
           article(3, "updated_text_3", hemingway)]
football_update = {"id": "sports-football", "type": "sports", "label": "football",
                   "articles": [updated[0], updated[2]]}
hockey = {"id": "sports-hockey", "type": "sports", "label": "hockey", "articles": [updated[1], updated[2]]}

many = [employee(f"employee {n}", n + 10) for n in range(50)]


def save(type, value, ref=None):
    step = {"op": "save", "type": type, "value": value}
    if ref:
        step["ref"] = ref
    return step


def expect(type, **kw):
    return {"op": "expect", "type": type, **kw}


scenarios = [
    {"name": "boxing a value with every property set (testToCoreDataNonNil, testFromCoreDataNonNil)",
     "steps": [{"op": "roundtrip", "type": "Employee", "value": john,
                "object": {"name": "John Doe", "age": 20, "position": "Manager"}}]},
    {"name": "boxing a nil optional (testToCoreDataNil, testFromCoreDataNil)",
     "steps": [{"op": "roundtrip", "type": "Employee", "value": nobody,
                "object": {"name": "Nobody", "age": 14, "position": None}}]},
    {"name": "a nested value as to-one (testToCoreDataSub, testFromCoreDataSub)",
     "steps": [{"op": "roundtrip", "type": "Shop", "value": {"name": "Carl's Household Items", "owner": carl,
                                                               "employees": []},
                "object": {"name": "Carl's Household Items"}, "related": {"owner": 1, "employees": 0}}]},
    {"name": "an array of values as ordered to-many (testToCoreDataSubArray, testFromCoreDataSubArray)",
     "steps": [{"op": "roundtrip", "type": "Company", "value": {"name": "Household Wares Inc.",
                                                                 "employees": [chris, ben]},
                "related": {"employees": 2}},
               expect("Employee", count=0),
               save("Company", {"name": "Household Wares Inc.", "employees": [chris, ben]}),
               expect("Employee", sorted=["name"], values=[ben, chris], count=2)]},
    {"name": "every attribute type, Transformable included (testOtherDataTypesToCoreData)",
     "steps": [{"op": "roundtrip", "type": "Other", "value": other,
                "object": {"boolean": True, "data": "AAEC", "date": 500000000.5, "decimal": 12.5, "double": 10,
                           "float": 20.5, "int16": -7, "int32": 70000, "int64": 5000000000, "int": 42,
                           "string": "text", "uuid": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
                           "url": "https://example.com/a?b=c", "level": 2}},
               save("Other", other, "o"),
               expect("Other", filter="level == 2 AND decimal > 12", values=[other], count=1),
               {"op": "update", "ref": "o", "set": {"size": None, "tags": []}},
               expect("Other", values=[{k: v for k, v in other.items() if k != "size"} | {"tags": []}])]},
    {"name": "queries with a predicate and without sort (testQueryYoungOnes, testQueryOldOnes)",
     "steps": [save("Employee", e) for e in many] + [
         expect("Employee", filter="age > 10 AND age < 12", values=[many[1]], count=1),
         expect("Employee", filter="age > 50", values=many[41:], count=9),
         expect("Employee", filter="name BEGINSWITH 'employee 4' OR age == 12", values=[many[2], many[4]] + many[40:],
                count=12)]},
    {"name": "queries with sort, limit and offset (testQueryOrder)",
     "steps": [save("Employee", e) for e in many] + [
         expect("Employee", sorted=["-age"], limit=1, values=[many[49]]),
         expect("Employee", sorted=["age"], offset=5, limit=3, values=many[5:8]),
         expect("Employee", filter="age >= 30", sorted=["-name"], limit=2, values=[many[49], many[48]]),
         expect("Employee", count=50)]},
    {"name": "saving twice updates, never duplicates (testStorage)",
     "steps": [save("Shop", {"name": "shop1", "owner": employee("a", 4), "employees": []}, "s1"),
               save("Shop", {"name": "shop2", "owner": employee("a", 4), "employees": []}, "s2"),
               {"op": "update", "ref": "s1", "set": {}},
               {"op": "update", "ref": "s2", "set": {}},
               expect("Shop", filter="name == 'shop1'", count=1),
               expect("Shop", count=2),
               expect("Employee", count=2)]},
    {"name": "update, and nested values saved with their parent",
     "steps": [save("Shop", {"name": "Household Wares", "owner": None, "employees": [john]}, "s"),
               {"op": "update", "ref": "s", "set": {"name": "Hardware", "owner": carl}},
               expect("Shop", values=[{"name": "Hardware", "owner": carl, "employees": [john]}]),
               expect("Employee", sorted=["name"], values=[carl, john])]},
    {"name": "a changed nested value is saved with its parent",
     "steps": [save("Shop", {"name": "Nested", "owner": carl, "employees": [john, chris]}, "s"),
               {"op": "update", "ref": "s", "setIn": {"employees.1.name": "Christopher High", "owner.age": 67}},
               expect("Shop", values=[{"name": "Nested", "owner": carl | {"age": 67},
                                       "employees": [john, chris | {"name": "Christopher High"}]}]),
               expect("Employee", sorted=["name"], values=[carl | {"age": 67}, chris | {"name": "Christopher High"},
                                                           john], count=3)]},
    {"name": "removing an element from an array removes the link, not the element",
     "steps": [save("Shop", {"name": "Three", "employees": [john, chris, ben]}, "s"),
               expect("Shop", values=[{"name": "Three", "employees": [john, chris, ben]}]),
               {"op": "update", "ref": "s", "removeAt": {"employees": 1}},
               expect("Shop", values=[{"name": "Three", "employees": [john, ben]}]),
               expect("Employee", count=3),
               {"op": "update", "ref": "s", "set": {"employees": []}},
               expect("Shop", values=[{"name": "Three", "employees": []}]),
               expect("Employee", sorted=["name"], values=[ben, chris, john])]},
    {"name": "reordering an array keeps the new order",
     "steps": [save("Company", {"name": "C", "employees": [chris, ben, john]}),
               expect("Company", values=[{"name": "C", "employees": [chris, ben, john]}])]},
    {"name": "a nested optional set back to nil",
     "steps": [save("Shop", {"name": "Owned", "owner": carl, "employees": []}, "s"),
               {"op": "update", "ref": "s", "set": {"owner": None}},
               expect("Shop", values=[{"name": "Owned", "employees": []}]),
               expect("Employee", values=[carl])]},
    {"name": "delete; the model's delete rules apply (Nullify: the owner stays)",
     "steps": [save("Employee", john, "j"), save("Employee", nobody),
               save("Shop", {"name": "Gone", "owner": carl, "employees": []}, "s"),
               {"op": "delete", "ref": "j"},
               {"op": "delete", "ref": "s"},
               expect("Employee", sorted=["name"], values=[carl, nobody], count=2),
               expect("Shop", count=0)]},
    {"name": "enums stored as their raw value",
     "steps": [save("Car", {"name": "Van", "type": "sedan"}, "c"),
               save("Car", {"name": "Truck", "type": "pickup", "previous": "hatchback"}),
               expect("Car", filter="type == 'sedan'", values=[{"name": "Van", "type": "sedan"}]),
               {"op": "update", "ref": "c", "set": {"type": "pickup", "previous": "sedan"}},
               expect("Car", filter="type == 'pickup'", sorted=["name"],
                      values=[{"name": "Truck", "type": "pickup", "previous": "hatchback"},
                              {"name": "Van", "type": "pickup", "previous": "sedan"}]),
               expect("Car", filter="previous == nil", count=0)]},
    {"name": "unique: saving twice updates (testUniqueSavingTwoTimes)",
     "steps": [save("Category", football), save("Category", football),
               expect("Category", values=[football], count=1),
               expect("Article", count=3), expect("Author", count=2)]},
    {"name": "unique: upsert by identifier (testUpdatesBasedOnId)",
     "steps": [save("Category", football),
               save("Category", football_update), save("Category", hockey),
               expect("Category", sorted=["label"], values=[football_update, hockey], count=2),
               expect("Author", sorted=["id"], values=[hemingway, kafka]),
               expect("Article", sorted=["id"], values=updated)]},
    {"name": "unique: a changed identifier is a new object (testUpdatesCategory)",
     "steps": [save("Category", football),
               save("Category", football | {"id": "sports-curling", "label": "curling"}),
               expect("Category", filter="label == 'curling'", count=1),
               expect("Category", filter="label == 'football'", count=1)]},
    {"name": "unique: the same identifier twice in one save, the last one wins (testSaveWithInconsistentData)",
     "steps": [save("Category", football | {"articles": football["articles"] + [
                   article(1, "conflicted_text", hemingway)]}),
               expect("Article", filter="id == 1", values=[article(1, "conflicted_text", hemingway)]),
               expect("Category", values=[football | {"articles": [article(1, "conflicted_text", hemingway)]
                                                      + football["articles"][1:]}])]},
    {"name": "unique: delete by identifier",
     "steps": [save("Author", hemingway), save("Author", capek),
               {"op": "delete", "type": "Author", "value": {"id": "e1x45", "name": "any name"}},
               {"op": "delete", "type": "Author", "value": {"id": "nobody", "name": "absent: nothing happens"}},
               expect("Author", values=[capek], count=1)]},
]

with open("scenarios.json", "w") as f:
    json.dump(scenarios, f, indent=1, sort_keys=True)
    f.write("\n")
