"""Django admin sentences that put a model's name in a grammatical slot.

Django builds "Add %(name)s", "Select %s to change", "The {name} “{obj}” was
added successfully." from a model's ``verbose_name``.  Russian needs the
accusative ("Добавить игрока") and a gender ("была добавлена"), which one
verbose name in the nominative cannot give; Django's own Russian catalogue
therefore prints "Добавить игрок", "Выберите игрок для изменения".  Our
catalogue (LOCALE_PATHS, which wins over Django's) words each of these so that
the model's name stands alone in the nominative: "Добавление: игрок",
"Выберите объект «игрок» для изменения", "Объект «…» (игрок) успешно
добавлен".

The msgids must stay exactly Django's; they are marked here only so that
``makemessages`` keeps them in our catalogue.  Nothing imports this module.
"""

from __future__ import annotations

from django.utils.translation import gettext_noop

ADMIN_SENTENCES = (
    gettext_noop("Add %s"),
    gettext_noop("Add %(name)s"),
    gettext_noop("Change %s"),
    gettext_noop("View %s"),
    gettext_noop("Select %s"),
    gettext_noop("Select %s to change"),
    gettext_noop("Select %s to view"),
    gettext_noop("Add another %(verbose_name)s"),
    gettext_noop("Delete selected %(verbose_name_plural)s"),
    gettext_noop("Cannot delete %(name)s"),
    gettext_noop("Added {name} “{object}”."),
    gettext_noop("Changed {fields} for {name} “{object}”."),
    gettext_noop("Deleted {name} “{object}”."),
    gettext_noop("The {name} “{obj}” was added successfully."),
    gettext_noop("The {name} “{obj}” was added successfully. You may add another {name} below."),
    gettext_noop("The {name} “{obj}” was changed successfully."),
    gettext_noop("The {name} “{obj}” was changed successfully. You may edit it again below."),
    gettext_noop("The {name} “{obj}” was changed successfully. You may add another {name} below."),
    gettext_noop("The %(name)s “%(obj)s” was deleted successfully."),
    gettext_noop("%(name)s with ID “%(key)s” doesn’t exist. Perhaps it was deleted?"),
)
