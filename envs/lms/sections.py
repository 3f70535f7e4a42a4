"""The LMS's features as data: sections, their items' actions, form fields and REST effects.

OdoBot Section V (the Canvas sandbox): every task is a side effect through a non-GET REST call.
One table drives the pages, the API and the task checks, so a form, the call it makes and the
database row a check reads can never disagree.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

FieldKind = Literal["text", "date", "number", "richtext", "select", "checkbox", "radio"]
Effect = Literal["create", "update", "delete", "record", "flag"]

TIME_ZONES = ["UTC", "America/Edmonton", "America/Toronto", "Europe/Berlin", "Asia/Tokyo"]
LANGUAGES = ["English", "Français", "Deutsch", "Español", "日本語"]
PRONOUNS = ["she/her", "he/him", "they/them", "none"]
ROLES = ["Student", "Teacher", "TA", "Observer"]
VISIBILITY = ["Course", "Institution", "Public"]
STATIC_OPTIONS = {
    "time_zones": TIME_ZONES,
    "languages": LANGUAGES,
    "pronouns": PRONOUNS,
    "roles": ROLES,
    "visibility": VISIBILITY,
}


class FormField(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str
    label: str
    kind: FieldKind
    # Where a select/radio gets its options: a STATIC_OPTIONS key, "students", "pages",
    # "assignments", "people" (every user) or "quiz" (the quiz item's own choices).
    options: str = ""


class Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    key: str
    button: str  # the visible text of the link/button that opens or runs the action
    method: Literal["POST", "PUT", "DELETE"]
    effect: Effect
    on_item: bool = True  # False: a collection action ("New discussion")
    fields: tuple[FormField, ...] = ()
    record: str = ""  # record kind for effect "record"; flag name for effect "flag"


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    key: str
    title: str  # navigation text
    noun: str
    scope: Literal["course", "account"] = "course"
    title_field: str = "title"
    singleton: bool = False  # course settings and the profile: one item, no list
    actions: tuple[Action, ...] = ()

    def action(self, key: str) -> Action:
        for a in self.actions:
            if a.key == key:
                return a
        raise KeyError(f"section {self.key} has no action {key!r}")


def _f(name: str, label: str, kind: FieldKind = "text", options: str = "") -> FormField:
    return FormField(name=name, label=label, kind=kind, options=options)


def _new(button: str, *fields: FormField) -> Action:
    return Action(key="new", button=button, method="POST", effect="create", on_item=False,
                  fields=fields)  # fmt: skip


def _put(key: str, button: str, *fields: FormField) -> Action:
    return Action(key=key, button=button, method="PUT", effect="update", fields=fields)


def _rec(key: str, button: str, *fields: FormField) -> Action:
    return Action(key=key, button=button, method="POST", effect="record", fields=fields, record=key)


def _flag(key: str, button: str, flag: str) -> Action:
    return Action(key=key, button=button, method="POST", effect="flag", record=flag)


_DELETE = Action(key="delete", button="Delete", method="DELETE", effect="delete")
_TITLE = _f("title", "Title")
_MESSAGE = _f("message", "Message", "richtext")

SECTIONS: tuple[Section, ...] = (
    Section(key="announcements", title="Announcements", noun="announcement", actions=(
        _new("New announcement", _TITLE, _MESSAGE, _f("delayed", "Delay posting", "checkbox")),
        _put("rename", "Edit title", _TITLE), _DELETE,
        _rec("comment", "Reply", _MESSAGE),
    )),
    Section(key="discussions", title="Discussions", noun="discussion", actions=(
        _new("New discussion", _TITLE, _MESSAGE,
             _f("threaded", "Allow threaded replies", "checkbox"),
             _f("pinned", "Pin this discussion", "checkbox")),
        _rec("reply", "Reply", _MESSAGE), _put("rename", "Edit title", _TITLE), _DELETE,
        _flag("subscribe", "Subscribe", "subscribed"),
    )),
    Section(key="assignments", title="Assignments", noun="assignment", title_field="name",
            actions=(
        _new("New assignment", _f("name", "Name"), _f("points", "Points", "number"),
             _f("due_at", "Due date", "date")),
        _rec("submit", "Submit assignment", _f("body", "Submission text", "richtext")),
        _rec("submit_url", "Submit a link", _f("url", "Website URL")),
        _put("due", "Change due date", _f("due_at", "Due date", "date")),
        _put("points", "Change points", _f("points", "Points", "number")),
        _put("rename", "Rename", _f("name", "Name")), _DELETE,
        _rec("comment", "Add comment", _f("comment", "Comment")),
        _rec("grade", "Grade", _f("student", "Student", "select", "students"),
             _f("score", "Score", "number")),
    )),
    Section(key="pages", title="Pages", noun="page", actions=(
        _new("New page", _TITLE, _f("body", "Content", "richtext"),
             _f("published", "Publish now", "checkbox")),
        _put("edit", "Edit content", _f("body", "Content", "richtext")),
        _put("rename", "Rename", _TITLE), _DELETE,
        _flag("front", "Use as front page", "front"),
    )),
    Section(key="modules", title="Modules", noun="module", title_field="name", actions=(
        _new("New module", _f("name", "Module name")),
        _put("rename", "Rename", _f("name", "Module name")), _DELETE,
        _flag("publish", "Publish", "published"),
        _rec("add_page", "Add a page", _f("page", "Page", "select", "pages")),
        _rec("add_assignment", "Add an assignment",
             _f("assignment", "Assignment", "select", "assignments")),
    )),
    Section(key="quizzes", title="Quizzes", noun="quiz", actions=(
        _new("New quiz", _TITLE, _f("time_limit", "Time limit (minutes)", "number")),
        _rec("take", "Take the quiz", _f("answer", "Answer", "radio", "quiz")),
        _put("rename", "Rename", _TITLE), _flag("publish", "Publish", "published"), _DELETE,
        _put("time_limit", "Set time limit", _f("time_limit", "Time limit (minutes)", "number")),
    )),
    Section(key="people", title="People", noun="person", title_field="name", actions=(
        _new("Add people", _f("name", "Login name"), _f("role", "Role", "select", "roles")),
        Action(key="delete", button="Remove from course", method="DELETE", effect="delete"),
        _put("role", "Change role", _f("role", "Role", "select", "roles")),
    )),
    Section(key="groups", title="Groups", noun="group", title_field="name", actions=(
        _new("New group", _f("name", "Group name")), _flag("join", "Join group", "joined"),
    )),
    Section(key="settings", title="Settings", noun="course", title_field="name", singleton=True,
            actions=(
        _put("rename", "Change course name", _f("name", "Course name")),
        _put("code", "Change course code", _f("code", "Course code")),
        _put("visibility", "Change visibility",
             _f("visibility", "Visibility", "select", "visibility")),
        _put("start", "Change start date", _f("start_date", "Start date", "date")),
        _put("syllabus", "Edit syllabus", _f("syllabus", "Syllabus", "richtext")),
    )),
    Section(key="profile", title="Profile", noun="profile", scope="account",
            title_field="display_name", singleton=True, actions=(
        _put("name", "Edit display name", _f("display_name", "Display name")),
        _put("timezone", "Change time zone", _f("time_zone", "Time zone", "select", "time_zones")),
        _put("language", "Change language", _f("language", "Language", "select", "languages")),
        _put("notifications", "Notification preferences",
             _f("email_notifications", "Email me about new announcements", "checkbox")),
        _put("bio", "Edit biography", _f("bio", "Biography", "richtext")),
        _put("pronouns", "Change pronouns", _f("pronouns", "Pronouns", "select", "pronouns")),
        _rec("link", "Add a link", _f("link_title", "Link title"), _f("link_url", "Link URL")),
    )),
    Section(key="calendar", title="Calendar", noun="event", scope="account", actions=(
        _new("New event", _TITLE, _f("date", "Date", "date")), _DELETE,
    )),
    Section(key="inbox", title="Inbox", noun="conversation", scope="account", title_field="subject",
            actions=(
        _new("Compose", _f("recipient", "To", "select", "people"), _f("subject", "Subject"),
             _f("body", "Message", "richtext")),
        Action(key="delete", button="Archive", method="DELETE", effect="delete"),
    )),
)  # fmt: skip

BY_KEY = {s.key: s for s in SECTIONS}
COURSE_SECTIONS = tuple(s for s in SECTIONS if s.scope == "course")
ACCOUNT_SECTIONS = tuple(s for s in SECTIONS if s.scope == "account")


def section(key: str) -> Section:
    if key not in BY_KEY:
        raise KeyError(f"unknown LMS section {key!r}; known: {', '.join(BY_KEY)}")
    return BY_KEY[key]
