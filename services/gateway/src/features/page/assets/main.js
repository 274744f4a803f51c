// The page's entry: three views (timetable, free rooms, developers) chosen by the address's fragment.
import { startDeveloperView } from './developer-view.js';
import { loadBuildings, startFreeRoomsView } from './free-rooms-view.js';
import { startStudentView } from './student-view.js';

const VIEWS = ['timetable', 'free-rooms', 'developers'];

const developers = startDeveloperView();
startFreeRoomsView();
showView(false);
window.addEventListener('hashchange', () => showView(true));
void startStudentView();

/**
 * Shows the view the fragment names (the timetable by default) and marks its link as the current one.
 * @param {boolean} moveFocus after a navigation, to the view's heading, so keyboard and screen reader users land there
 */
function showView(moveFocus) {
  const requested = location.hash.slice(1);
  const current = VIEWS.includes(requested) ? requested : 'timetable';
  for (const view of VIEWS) {
    const section = document.getElementById(view);
    if (section) section.hidden = view !== current;
  }
  for (const link of document.querySelectorAll('[data-view-link]')) {
    if (link.getAttribute('data-view-link') === current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (current === 'free-rooms') void loadBuildings();
  if (current === 'developers') developers.refresh();
  if (moveFocus) document.getElementById(`${current}-heading`)?.focus();
}
