/** Word lists for the demo university; every character is in ISO-8859-1, as the JSON transport requires. */

export interface Subject {
  abbreviation: string;
  name: string;
}

export const SUBJECTS: readonly Subject[] = [
  { abbreviation: 'INF', name: 'Informatik' },
  { abbreviation: 'WIF', name: 'Wirtschaftsinformatik' },
  { abbreviation: 'BW', name: 'Betriebswirtschaft' },
  { abbreviation: 'MB', name: 'Maschinenbau' },
  { abbreviation: 'EIT', name: 'Elektro- und Informationstechnik' },
  { abbreviation: 'HT', name: 'Holztechnik' },
  { abbreviation: 'INN', name: 'Innenarchitektur' },
  { abbreviation: 'WI', name: 'Wirtschaftsingenieurwesen' },
  { abbreviation: 'MEC', name: 'Mechatronik' },
  { abbreviation: 'KT', name: 'Kunststofftechnik' },
  { abbreviation: 'EGT', name: 'Energie- und Gebäudetechnologie' },
  { abbreviation: 'PDK', name: 'Pädagogik der Kindheit' },
  { abbreviation: 'SOA', name: 'Soziale Arbeit' },
  { abbreviation: 'PFL', name: 'Pflege' },
  { abbreviation: 'AFE', name: 'Angewandte Forschung & Entwicklung' },
  { abbreviation: 'FI', name: 'Führung und Internationalisierung' },
  { abbreviation: 'ARC', name: 'Architektur' },
  { abbreviation: 'BI', name: 'Bauingenieurwesen' },
  { abbreviation: 'CHE', name: 'Chemieingenieurwesen' },
  { abbreviation: 'MT', name: 'Medizintechnik' },
];

/** Degree kinds: the name prefix decides the service's degreeType (bachelor, master, other). */
export const DEGREES = [
  { prefix: 'Bachelorstudiengang ', suffix: '-B', semesters: 'Semester' },
  { prefix: 'Masterstudiengang ', suffix: '-M', semesters: 'Semester' },
  { prefix: 'Zertifikatskurs ', suffix: '-Z', semesters: 'Modul' },
] as const;

export const PROGRAM_VARIANTS: readonly { shortname: string; name: string }[] = [
  { shortname: '', name: '' },
  { shortname: '(b)', name: ' (berufsbegleitend)' },
  { shortname: ' SÜD', name: ' - Campus Süd' },
  { shortname: '(b) SÜD', name: ' (berufsbegleitend) - Campus Süd' },
];

export interface Topic {
  abbreviation: string;
  name: string;
}

export const TOPICS: readonly Topic[] = [
  { abbreviation: 'MA', name: 'Mathematik' },
  { abbreviation: 'DB', name: 'Datenbanken' },
  { abbreviation: 'RN', name: 'Rechnernetze' },
  { abbreviation: 'BS', name: 'Betriebssysteme' },
  { abbreviation: 'SE', name: 'Software Engineering' },
  { abbreviation: 'PG', name: 'Programmieren' },
  { abbreviation: 'GET', name: 'Grundlagen der Elektrotechnik' },
  { abbreviation: 'TM', name: 'Technische Mechanik' },
  { abbreviation: 'WK', name: 'Werkstoffkunde' },
  { abbreviation: 'KRC', name: 'Kostenrechnung & Controlling' },
  { abbreviation: 'WPR', name: 'Wirtschaftsprivatrecht / Arbeitsrecht' },
  { abbreviation: 'MVS', name: 'Marketing, Vertrieb und Service' },
  { abbreviation: 'FO', name: 'Führung & Organisation' },
  { abbreviation: 'SL', name: 'Strömungslehre' },
  { abbreviation: 'TD', name: 'Thermodynamik' },
  { abbreviation: 'RT', name: 'Regelungstechnik' },
  { abbreviation: 'PH', name: 'Physik' },
  { abbreviation: 'ST', name: 'Statistik' },
  { abbreviation: 'KI', name: 'Künstliche Intelligenz' },
  { abbreviation: 'QM', name: 'Qualitätsmanagement' },
  { abbreviation: 'FT', name: 'Fertigungstechnik' },
  { abbreviation: 'KON', name: 'Konstruktion' },
  { abbreviation: 'BP', name: 'Bauphysik' },
  { abbreviation: 'PM', name: 'Projektmanagement' },
  { abbreviation: 'WA', name: 'Wissenschaftliches Arbeiten' },
  { abbreviation: 'ENG', name: 'Englisch für Ingenieure' },
  { abbreviation: 'GT', name: 'Größen, Maße und Toleranzen' },
  { abbreviation: 'ITS', name: 'IT-Sicherheit' },
  { abbreviation: 'ML', name: 'Maschinelles Lernen' },
  { abbreviation: 'ENT', name: 'Entwicklungspsychologie' },
  { abbreviation: 'HB', name: 'Holzbau' },
  { abbreviation: 'OEK', name: 'Ökologie & Nachhaltigkeit' },
  { abbreviation: 'KOL', name: 'Kolloquium; Abschlussarbeiten' },
];

/** Lecture name patterns; `{n}` is a running number, `{t}` the topic name. */
export const LECTURE_FORMS: readonly { shortname: string; name: string }[] = [
  { shortname: '{a}{n}', name: '{t} {n}' },
  { shortname: '{a} Ü', name: 'Übungen zu {t}' },
  { shortname: '{a} P', name: 'Praktikum {t}' },
  { shortname: 'S-{a}', name: 'Seminar {t}' },
  { shortname: 'E-{a}', name: 'Einführung in {t}' },
  { shortname: 'x{a}', name: 'Vertiefung {t}' },
];

export const TITLES = ['Prof. Dr.', 'Prof. Dr.', 'Prof. Dr.-Ing.', 'Prof.', 'Dr.', 'Dipl.-Ing.', '', ''] as const;

export const FIRST_NAMES = [
  'Jürgen', 'Björn', 'Käthe', 'Özlem', 'Anna', 'Thomas', 'Sabine', 'Michael', 'Andrea', 'Stefan', 'Claudia',
  'Martin', 'Petra', 'Andreas', 'Monika', 'Frank', 'Birgit', 'Klaus', 'Ute', 'Jörg', 'Bärbel', 'Sören',
  'Lena', 'Felix', 'Maximilian', 'Sophie', 'Lukas', 'Marie', 'Jonas', 'Hannah', 'Tobias', 'Julia', 'René',
  'Chloé', 'Hans-Peter', 'Anne-Kathrin', 'Günther', 'Gisela', 'Ralf', 'Dörte',
] as const;

export const SURNAMES = [
  'Müller', 'Schröder', 'Weiß', 'Groß', 'Krämer', 'Fuß', 'Schmidt', 'Schneider', 'Fischer', 'Weber', 'Meyer',
  'Wagner', 'Becker', 'Schulz', 'Hoffmann', 'Schäfer', 'Koch', 'Bauer', 'Richter', 'Klein', 'Wolf',
  'Neumann', 'Schwarz', 'Zimmermann', 'Braun', 'Krüger', 'Hofmann', 'Hartmann', 'Lange', 'Schmitt',
  'Werner', 'Schmitz', 'Krause', 'Meier', 'Lehmann', 'Schmid', 'Schulze', 'Maier', 'Köhler', 'Herrmann',
  'König', 'Walter', 'Mayer', 'Huber', 'Kaiser', 'Fuchs', 'Peters', 'Lang', 'Scholz', 'Möller', 'Weiß-Oberniedermaier',
  'Jäger', 'Günther', 'Strauß', 'Öztürk', 'Böhm', 'Brückner', 'Gärtner', 'Nußbaum', 'Dürr',
] as const;

export const LOCATIONS = [
  { shortname: '*HC', name: 'Hauptcampus Rosenau (Hochschule)' },
  { shortname: 'SÜD', name: 'Campus Süd, Mühlbach' },
] as const;

export const ROOM_KINDS = [
  { name: 'Hörsaal', minSeats: 60, maxSeats: 200 },
  { name: 'Seminarraum', minSeats: 12, maxSeats: 40 },
  { name: 'Seminarraum *** Raumreservierung über Sekretariat', minSeats: 12, maxSeats: 30 },
  { name: 'PC-Pool', minSeats: 20, maxSeats: 36 },
  { name: 'Labor für Werkstoffprüfung', minSeats: 10, maxSeats: 24 },
  { name: 'Übungsraum (Zeichensaal)', minSeats: 20, maxSeats: 50 },
] as const;

export const BUILDINGS = ['A', 'B', 'C', 'D', 'E', 'G', 'H', 'R', 'S', 'W'] as const;
